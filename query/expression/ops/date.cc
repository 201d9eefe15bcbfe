// The date family: the date parts ($year $month $dayOfMonth $hour $minute $second $millisecond
// $dayOfWeek $dayOfYear $week $isoWeek $isoWeekYear $isoDayOfWeek), $dateToString and
// $dateToParts, each with an optional timezone (query/expression/timezone.h: Olson names and
// UTC offsets). Rules as MongoDB's DateExpressionAcceptingTimeZone and its neighbours:
// a date part takes <date>, [<date>] (40536 for other array lengths), an expression object, or
// {date, timezone} (40535 unknown field, 40539 no date); a nullish date or timezone gives null;
// a timezone must be a string (40517) that names a zone (40485); dates come from Date,
// Timestamp and ObjectId values (else 16006). $isoWeekYear is a long, the other parts ints.
// The date coercion, timezone operand and format rules are shared (operator.h) with the
// calendar arithmetic (date_arith.cc) and the date constructors (date_from.cc).
#include <optional>
#include <string>

#include "query/expression/operator.h"
#include "query/expression/timezone.h"

namespace cairn::query::ops {

// Value::coerceToDate (shared with date_arith.cc and date_from.cc through operator.h).
Result<int64_t> DateMillis(const Value& v) {
  switch (v.type()) {
    case BSON_TYPE_DATE_TIME:
      return v.date();
    case BSON_TYPE_TIMESTAMP: {
      bson_iter_t it = v.iter();
      uint32_t seconds = 0, increment = 0;
      bson_iter_timestamp(&it, &seconds, &increment);
      return int64_t{seconds} * 1000;
    }
    case BSON_TYPE_OID:
      return int64_t{bson_oid_get_time_t(v.oid())} * 1000;
    default:
      return Status(ErrorCode::kLocation16006,
                    "can't convert from BSON type " + TypeNameOf(v) + " to Date");
  }
}

// The zone of an optional timezone operand: UTC when absent, nullopt when it is nullish.
Result<std::optional<TimeZone>> EvalTimeZone(const OperatorExpression& op, size_t slot,
                                             Variables* vars) {
  if (!op.has(slot)) return std::optional<TimeZone>(TimeZone());
  CAIRN_ASSIGN_OR_RETURN(Value tz, op.Eval(slot, vars));
  if (tz.nullish()) return std::optional<TimeZone>();
  if (!tz.is_string()) {
    return Status(ErrorCode::kLocation40517,
                  "timezone must evaluate to a string, found " + TypeNameOf(tz));
  }
  CAIRN_ASSIGN_OR_RETURN(TimeZone zone, TimeZone::Parse(tz.string()));
  return std::optional<TimeZone>(zone);
}

namespace {

// Operands of a date part: [date, timezone or null]. Nullopt when the result is null.
Result<std::optional<DateParts>> PartsOf(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value date, op.Eval(0, vars));
  if (date.nullish()) return std::optional<DateParts>();
  CAIRN_ASSIGN_OR_RETURN(std::optional<TimeZone> zone, EvalTimeZone(op, 1, vars));
  if (!zone) return std::optional<DateParts>();
  CAIRN_ASSIGN_OR_RETURN(int64_t millis, DateMillis(date));
  return std::optional<DateParts>(zone->Breakdown(millis));
}

template <int (*Part)(const DateParts&)>
Result<Value> EvalIntPart(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(std::optional<DateParts> parts, PartsOf(op, vars));
  if (!parts) return Value::Null();
  return Value::Int32(Part(*parts));
}

Result<Value> EvalIsoWeekYear(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(std::optional<DateParts> parts, PartsOf(op, vars));
  if (!parts) return Value::Null();
  return Value::Int64(parts->iso_week_year);
}

int Year(const DateParts& p) { return static_cast<int>(p.year); }
int Month(const DateParts& p) { return p.month; }
int DayOfMonth(const DateParts& p) { return p.day; }
int Hour(const DateParts& p) { return p.hour; }
int Minute(const DateParts& p) { return p.minute; }
int Second(const DateParts& p) { return p.second; }
int Millisecond(const DateParts& p) { return p.millisecond; }
int DayOfWeek(const DateParts& p) { return p.day_of_week; }
int DayOfYear(const DateParts& p) { return p.day_of_year; }
int Week(const DateParts& p) { return p.week; }
int IsoWeek(const DateParts& p) { return p.iso_week; }
int IsoDayOfWeek(const DateParts& p) { return p.iso_day_of_week; }

struct DatePartRow {
  std::string_view name;
  OperatorExpression::Evaluator evaluate;
};
constexpr DatePartRow kDateParts[] = {
    {"$dayOfMonth", EvalIntPart<DayOfMonth>},
    {"$dayOfWeek", EvalIntPart<DayOfWeek>},
    {"$dayOfYear", EvalIntPart<DayOfYear>},
    {"$hour", EvalIntPart<Hour>},
    {"$isoDayOfWeek", EvalIntPart<IsoDayOfWeek>},
    {"$isoWeek", EvalIntPart<IsoWeek>},
    {"$isoWeekYear", EvalIsoWeekYear},
    {"$millisecond", EvalIntPart<Millisecond>},
    {"$minute", EvalIntPart<Minute>},
    {"$month", EvalIntPart<Month>},
    {"$second", EvalIntPart<Second>},
    {"$week", EvalIntPart<Week>},
    {"$year", EvalIntPart<Year>},
};

// `<key>: <value>` as BSONElement's operator<< prints it in messages.
std::string RenderArgument(const bson_iter_t* arg) {
  return std::string(IterKey(arg)) + ": " + ValueToShellString(arg);
}

std::string Pad(int64_t value, int width) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  if (static_cast<int>(digits.size()) < width) {
    digits.insert(0, static_cast<size_t>(width) - digits.size(), '0');
  }
  return value < 0 ? "-" + digits : digits;
}

constexpr const char* kMonthNames[] = {"January",   "February", "March",    "April",
                                       "May",       "June",     "July",     "August",
                                       "September", "October",  "November", "December"};

}  // namespace

// TimeZone::validateToStringFormat: 18535 for a trailing '%', 18536 for an unknown specifier.
Status ValidateFormat(std::string_view format) {
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') continue;
    if (i + 1 == format.size()) {
      return Status(ErrorCode::kLocation18535, "Unmatched '%' at end of format string");
    }
    switch (format[++i]) {
      case 'd':
      case 'G':
      case 'H':
      case 'j':
      case 'L':
      case 'm':
      case 'M':
      case 'S':
      case 'u':
      case 'U':
      case 'V':
      case 'w':
      case 'Y':
      case 'z':
      case 'Z':
      case '%':
      case 'b':
      case 'B':
        break;
      default:
        return Status(
            ErrorCode::kLocation18536,
            "Invalid format character '%" + std::string(1, format[i]) + "' in format string");
    }
  }
  return Status::OK();
}

Result<Value> EvalDateFormat(const OperatorExpression& op, size_t slot, ErrorCode not_string,
                             Variables* vars) {
  if (!op.has(slot)) return Value();
  CAIRN_ASSIGN_OR_RETURN(Value format, op.Eval(slot, vars));
  if (format.nullish()) return format;
  if (!format.is_string()) {
    return Status(not_string, std::string(op.name()) +
                                  " requires that 'format' be a string, found: " +
                                  TypeNameOf(format) + " with value " + ValueToString(format));
  }
  CAIRN_RETURN_IF_ERROR(ValidateFormat(format.string()));
  return format;
}

namespace {

// TimeZone::formatDate over an already validated format.
Result<std::string> FormatDate(std::string_view format, const DateParts& p) {
  std::string out;
  auto year4 = [&](int64_t year) -> Status {
    if (year < 0 || year > 9999) {
      return Status(ErrorCode::kLocation18537,
                    "Could not convert date to string: date component was outside the supported "
                    "range of 0-9999: " +
                        std::to_string(year));
    }
    out += Pad(year, 4);
    return Status::OK();
  };
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%' || i + 1 == format.size()) {
      out += format[i];
      continue;
    }
    switch (format[++i]) {
      case 'd':
        out += Pad(p.day, 2);
        break;
      case 'G':
        CAIRN_RETURN_IF_ERROR(year4(p.iso_week_year));
        break;
      case 'H':
        out += Pad(p.hour, 2);
        break;
      case 'j':
        out += Pad(p.day_of_year, 3);
        break;
      case 'L':
        out += Pad(p.millisecond, 3);
        break;
      case 'm':
        out += Pad(p.month, 2);
        break;
      case 'M':
        out += Pad(p.minute, 2);
        break;
      case 'S':
        out += Pad(p.second, 2);
        break;
      case 'u':
        out += std::to_string(p.iso_day_of_week);
        break;
      case 'U':
        out += Pad(p.week, 2);
        break;
      case 'V':
        out += Pad(p.iso_week, 2);
        break;
      case 'w':
        out += std::to_string(p.day_of_week);
        break;
      case 'Y':
        CAIRN_RETURN_IF_ERROR(year4(p.year));
        break;
      case 'z': {
        int32_t minutes = p.utc_offset_seconds / 60;
        int32_t magnitude = minutes < 0 ? -minutes : minutes;
        out += minutes < 0 ? '-' : '+';
        out += Pad(magnitude / 60, 2) + Pad(magnitude % 60, 2);
        break;
      }
      case 'Z': {
        int32_t minutes = p.utc_offset_seconds / 60;
        out += minutes < 0 ? '-' : '+';
        out += Pad(minutes < 0 ? -minutes : minutes, 3);
        break;
      }
      case 'b':
        out += std::string(kMonthNames[p.month - 1]).substr(0, 3);
        break;
      case 'B':
        out += kMonthNames[p.month - 1];
        break;
      case '%':
        out += '%';
        break;
      default:
        break;  // validated earlier
    }
  }
  return out;
}

// $dateToString operands: [date, format, timezone, onNull].
Result<Value> EvalDateToString(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value date, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value format, EvalDateFormat(op, 1, ErrorCode::kLocation18533, vars));
  CAIRN_ASSIGN_OR_RETURN(std::optional<TimeZone> zone, EvalTimeZone(op, 2, vars));
  if (date.nullish()) {
    if (op.has(3)) return op.Eval(3, vars);
    return Value::Null();
  }
  if (!zone) return Value::Null();
  if (op.has(1) && format.nullish()) return Value::Null();
  CAIRN_ASSIGN_OR_RETURN(int64_t millis, DateMillis(date));
  DateParts parts = zone->Breakdown(millis);
  std::string_view pattern = op.has(1)        ? format.string()
                             : !zone->IsUtc() ? "%Y-%m-%dT%H:%M:%S.%L"
                                              : "%Y-%m-%dT%H:%M:%S.%LZ";
  CAIRN_ASSIGN_OR_RETURN(std::string text, FormatDate(pattern, parts));
  return Value::String(text);
}

// $dateToParts operands: [date, timezone, iso8601].
Result<Value> EvalDateToParts(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value date, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(std::optional<TimeZone> zone, EvalTimeZone(op, 1, vars));
  bool iso = false;
  if (op.has(2)) {
    CAIRN_ASSIGN_OR_RETURN(Value iso_value, op.Eval(2, vars));
    if (iso_value.nullish()) return Value::Null();
    if (iso_value.type() != BSON_TYPE_BOOL) {
      return Status(ErrorCode::kLocation40521,
                    "iso8601 must evaluate to a bool, found " + TypeNameOf(iso_value));
    }
    iso = iso_value.boolean();
  }
  if (date.nullish() || !zone) return Value::Null();
  CAIRN_ASSIGN_OR_RETURN(int64_t millis, DateMillis(date));
  DateParts p = zone->Breakdown(millis);
  DocumentBuilder doc;
  if (iso) {
    doc.Append("isoWeekYear", Value::Int32(static_cast<int32_t>(p.iso_week_year)));
    doc.Append("isoWeek", Value::Int32(p.iso_week));
    doc.Append("isoDayOfWeek", Value::Int32(p.iso_day_of_week));
  } else {
    doc.Append("year", Value::Int32(static_cast<int32_t>(p.year)));
    doc.Append("month", Value::Int32(p.month));
    doc.Append("day", Value::Int32(p.day));
  }
  doc.Append("hour", Value::Int32(p.hour));
  doc.Append("minute", Value::Int32(p.minute));
  doc.Append("second", Value::Int32(p.second));
  doc.Append("millisecond", Value::Int32(p.millisecond));
  return doc.Finish();
}

// Parses the named arguments `names` of an object-only operator into slots in that order.
// Codes: not an object, unknown field, missing `names[0]` (required).
Result<std::vector<ExpressionPtr>> ParseNamed(const bson_iter_t* arg, std::string_view name,
                                              ParseContext& ctx,
                                              std::initializer_list<std::string_view> names,
                                              ErrorCode not_object, ErrorCode unknown,
                                              ErrorCode missing) {
  bson_iter_t it;
  if (!RecurseObjectArgument(arg, &it)) {
    return Status(not_object, std::string(name) + " only supports an object as its argument");
  }
  std::vector<ExpressionPtr> slots(names.size());
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    size_t slot = 0;
    for (std::string_view candidate : names) {
      if (candidate == key) break;
      ++slot;
    }
    if (slot == names.size()) {
      return Status(unknown,
                    "Unrecognized argument to " + std::string(name) + ": " + std::string(key));
    }
    CAIRN_ASSIGN_OR_RETURN(slots[slot], ParseOperand(&it, ctx));
  }
  if (!slots[0]) {
    return Status(
        missing, "Missing '" + std::string(*names.begin()) + "' parameter to " + std::string(name));
  }
  return slots;
}

}  // namespace

Result<ExpressionPtr> ParseDatePart(const bson_iter_t* arg, std::string_view name,
                                    ParseContext& ctx) {
  OperatorExpression::Evaluator evaluate = nullptr;
  for (const DatePartRow& row : kDateParts) {
    if (row.name == name) evaluate = row.evaluate;
  }
  std::vector<ExpressionPtr> operands(2);
  bson_iter_t it;
  if (BSON_ITER_HOLDS_DOCUMENT(arg) && bson_iter_recurse(arg, &it) && bson_iter_next(&it) &&
      IterKey(&it).substr(0, 1) != "$") {
    // {date, timezone}
    bson_iter_recurse(arg, &it);
    while (bson_iter_next(&it)) {
      std::string_view key = IterKey(&it);
      if (key == "date") {
        CAIRN_ASSIGN_OR_RETURN(operands[0], ParseOperand(&it, ctx));
      } else if (key == "timezone") {
        CAIRN_ASSIGN_OR_RETURN(operands[1], ParseOperand(&it, ctx));
      } else {
        return Status(ErrorCode::kLocation40535, "unrecognized option to " + std::string(name) +
                                                     ": \"" + std::string(key) + "\"");
      }
    }
    if (!operands[0]) {
      return Status(ErrorCode::kLocation40539, "missing 'date' argument to " + std::string(name) +
                                                   ", provided: " + RenderArgument(arg));
    }
  } else if (BSON_ITER_HOLDS_ARRAY(arg)) {
    uint32_t count = IterDocument(arg).CountKeys();
    if (count != 1) {
      return Status(ErrorCode::kLocation40536,
                    std::string(name) +
                        " accepts exactly one argument if given an array, but "
                        "was given " +
                        std::to_string(count));
    }
    bson_iter_recurse(arg, &it);
    bson_iter_next(&it);
    CAIRN_ASSIGN_OR_RETURN(operands[0], ParseOperand(&it, ctx));
  } else {
    CAIRN_ASSIGN_OR_RETURN(operands[0], ParseOperand(arg, ctx));
  }
  if (!operands[1]) operands.pop_back();
  return ExpressionPtr(std::make_unique<OperatorExpression>(name, std::move(operands), evaluate));
}

Result<ExpressionPtr> ParseDateToString(const bson_iter_t* arg, std::string_view name,
                                        ParseContext& ctx) {
  CAIRN_ASSIGN_OR_RETURN(
      std::vector<ExpressionPtr> operands,
      ParseNamed(arg, name, ctx, {"date", "format", "timezone", "onNull"},
                 ErrorCode::kLocation18629, ErrorCode::kLocation18534, ErrorCode::kLocation18628));
  // A constant format is checked now, as MongoDB's parse does.
  if (operands[1] && operands[1]->constant() != nullptr && operands[1]->constant()->is_string()) {
    CAIRN_RETURN_IF_ERROR(ValidateFormat(operands[1]->constant()->string()));
  }
  return ExpressionPtr(
      std::make_unique<OperatorExpression>(name, std::move(operands), EvalDateToString));
}

Result<ExpressionPtr> ParseDateToParts(const bson_iter_t* arg, std::string_view name,
                                       ParseContext& ctx) {
  CAIRN_ASSIGN_OR_RETURN(
      std::vector<ExpressionPtr> operands,
      ParseNamed(arg, name, ctx, {"date", "timezone", "iso8601"}, ErrorCode::kLocation40524,
                 ErrorCode::kLocation40520, ErrorCode::kLocation40522));
  return ExpressionPtr(
      std::make_unique<OperatorExpression>(name, std::move(operands), EvalDateToParts));
}

}  // namespace cairn::query::ops
