// Calendar arithmetic on dates: $dateAdd, $dateSubtract, $dateDiff and $dateTrunc, in a time
// zone (timezone.h), with MongoDB's units (year quarter month week day hour minute second
// millisecond) and rules (date_time_support.cpp): adding months keeps the local day, clamped to
// the last day of the target month; units of a day or more are added to the local wall-clock
// time, smaller ones to the instant; $dateDiff counts the unit boundaries crossed between the two
// local times (weeks starting on startOfWeek, default Sunday), correcting hours, minutes and
// seconds for a change of UTC offset; $dateTrunc bins dates from the reference point
// 2000-01-01T00:00 local time (moved forward to the first startOfWeek for weeks). Nullish
// arguments give null; the error codes are MongoDB 7.0's.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "query/expression/operator.h"

namespace cairn::query::ops {

namespace {

constexpr int64_t kMillisPerSecond = 1000;
constexpr int64_t kMillisPerMinute = 60 * kMillisPerSecond;
constexpr int64_t kMillisPerHour = 60 * kMillisPerMinute;
constexpr int64_t kMillisPerDay = 24 * kMillisPerHour;

enum class TimeUnit { kYear, kQuarter, kMonth, kWeek, kDay, kHour, kMinute, kSecond, kMillisecond };

struct TimeUnitName {
  std::string_view name;
  TimeUnit unit;
};
constexpr TimeUnitName kTimeUnits[] = {
    {"year", TimeUnit::kYear},
    {"quarter", TimeUnit::kQuarter},
    {"month", TimeUnit::kMonth},
    {"week", TimeUnit::kWeek},
    {"day", TimeUnit::kDay},
    {"hour", TimeUnit::kHour},
    {"minute", TimeUnit::kMinute},
    {"second", TimeUnit::kSecond},
    {"millisecond", TimeUnit::kMillisecond},
};

std::string_view UnitName(TimeUnit unit) {
  for (const TimeUnitName& row : kTimeUnits) {
    if (row.unit == unit) return row.name;
  }
  return "";
}

// DayOfWeek, ISO numbered: Monday 1 .. Sunday 7.
constexpr int kSunday = 7;
constexpr int kSaturday = 6;

int64_t FloorMod(int64_t value, int64_t divisor) {
  int64_t r = value % divisor;
  return r < 0 ? r + divisor : r;
}

// parseTimeUnit with its context: 5439013 not a string; FailedToParse unknown name.
Result<TimeUnit> ParseTimeUnit(const Value& v, std::string_view op) {
  if (!v.is_string()) {
    return Status(ErrorCode::kLocation5439013,
                  std::string(op) + " requires 'unit' to be a string, but got " + TypeNameOf(v));
  }
  for (const TimeUnitName& row : kTimeUnits) {
    if (row.name == v.string()) return row.unit;
  }
  return Status(ErrorCode::kFailedToParse,
                std::string(op) +
                    " parameter 'unit' value parsing failed :: caused by :: "
                    "unknown time unit value: " +
                    std::string(v.string()));
}

// parseDayOfWeek: full or three-letter English names, any case (5439015, 5439016).
Result<int> ParseDayOfWeek(const Value& v, std::string_view op) {
  if (!v.is_string()) {
    return Status(
        ErrorCode::kLocation5439015,
        std::string(op) + " requires 'startOfWeek' to be a string, but got " + TypeNameOf(v));
  }
  static constexpr std::string_view kDays[] = {"monday", "tuesday",  "wednesday", "thursday",
                                               "friday", "saturday", "sunday"};
  std::string lower(v.string());
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (int i = 0; i < 7; ++i) {
    if (lower == kDays[i] || lower == kDays[i].substr(0, 3)) return i + 1;
  }
  return Status(ErrorCode::kLocation5439016,
                std::string(op) +
                    " parameter 'startOfWeek' value cannot be recognized as a day of a week: " +
                    std::string(v.string()));
}

// A timezone error of $dateDiff / $dateTrunc, which MongoDB wraps with its parameter's name.
Result<std::optional<TimeZone>> EvalTimeZoneWithContext(const OperatorExpression& op, size_t slot,
                                                        Variables* vars) {
  Result<std::optional<TimeZone>> zone = EvalTimeZone(op, slot, vars);
  if (!zone.ok()) {
    return zone.status().WithContext(std::string(op.name()) +
                                     " parameter 'timezone' value parsing failed");
  }
  return zone;
}

// A local calendar date, the unit of the day-and-larger computations.
struct LocalDate {
  int64_t year;
  int month;
  int day;
  int64_t days() const { return DaysFromCivil(year, month, day); }
  // 1 (Monday) .. 7 (Sunday).
  int iso_day_of_week() const { return static_cast<int>(FloorMod(days() + 3, 7)) + 1; }
};

LocalDate DateOf(const DateParts& p) { return LocalDate{p.year, p.month, p.day}; }

int64_t DiffYears(const LocalDate& s, const LocalDate& e) { return e.year - s.year; }
int64_t DiffQuarters(const LocalDate& s, const LocalDate& e) {
  return (e.month - 1) / 3 - (s.month - 1) / 3 + DiffYears(s, e) * 4;
}
int64_t DiffMonths(const LocalDate& s, const LocalDate& e) {
  return e.month - s.month + DiffYears(s, e) * 12;
}
int64_t DiffDays(const LocalDate& s, const LocalDate& e) { return e.days() - s.days(); }
// Weeks starting on `start_of_week`: the day counts shifted to week starts (C++ truncating
// division, as MongoDB's dateDiffWeek).
int64_t DiffWeeks(const LocalDate& s, const LocalDate& e, int start_of_week) {
  auto position = [&](const LocalDate& d) { return (d.iso_day_of_week() - start_of_week + 7) % 7; };
  return (DiffDays(s, e) + position(s) - position(e)) / 7;
}

bool MultiplyOverflows(int64_t a, int64_t b, int64_t* out) {
  return __builtin_mul_overflow(a, b, out);
}

// isDateAddAmountValid: |amount| roughly within the range of a date.
bool AmountInRange(int64_t amount, TimeUnit unit) {
  constexpr int64_t kMaxDays = static_cast<int64_t>(UINT64_MAX / kMillisPerDay) + 1;
  constexpr int64_t kMaxYears = kMaxDays / 365 + 1;
  int64_t max = 0;
  switch (unit) {
    case TimeUnit::kYear:
      max = kMaxYears;
      break;
    case TimeUnit::kQuarter:
      max = kMaxYears * 4;
      break;
    case TimeUnit::kMonth:
      max = kMaxYears * 12;
      break;
    case TimeUnit::kWeek:
      max = kMaxDays / 7;
      break;
    case TimeUnit::kDay:
      max = kMaxDays;
      break;
    case TimeUnit::kHour:
      max = kMaxDays * 24;
      break;
    case TimeUnit::kMinute:
      max = kMaxDays * 24 * 60;
      break;
    case TimeUnit::kSecond:
      max = kMaxDays * 24 * 60 * 60;
      break;
    case TimeUnit::kMillisecond:
      return true;
  }
  return -max < amount && amount < max;
}

// dateAdd: `amount` units added to `millis` in `zone`.
Result<int64_t> DateAdd(int64_t millis, TimeUnit unit, int64_t amount, const TimeZone& zone) {
  const Status overflowed(ErrorCode::kLocation5166406, "dateAdd overflowed");
  int64_t out = 0;
  if (unit == TimeUnit::kMillisecond) {
    if (__builtin_add_overflow(millis, amount, &out)) return overflowed;
    return out;
  }
  if (!AmountInRange(amount, unit)) {
    return Status(ErrorCode::kLocation5976500,
                  "invalid dateAdd 'amount' parameter value: " + std::to_string(amount) + " " +
                      std::string(UnitName(unit)));
  }
  int64_t unit_millis = 0;
  switch (unit) {
    case TimeUnit::kHour:
      unit_millis = kMillisPerHour;
      break;
    case TimeUnit::kMinute:
      unit_millis = kMillisPerMinute;
      break;
    case TimeUnit::kSecond:
      unit_millis = kMillisPerSecond;
      break;
    default:
      break;
  }
  if (unit_millis != 0) {
    // Smaller than a day: added to the instant, so a DST change does not shift the result.
    int64_t delta = 0;
    if (MultiplyOverflows(amount, unit_millis, &delta) ||
        __builtin_add_overflow(millis, delta, &out)) {
      return overflowed;
    }
    return out;
  }
  // A day or more: added to the local wall-clock time, which keeps the time of day.
  const DateParts p = zone.Breakdown(millis);
  const int64_t local = millis + int64_t{p.utc_offset_seconds} * kMillisPerSecond;
  const int64_t ms_of_day = FloorMod(local, kMillisPerDay);
  int64_t days = DaysFromCivil(p.year, p.month, p.day);
  if (unit == TimeUnit::kDay || unit == TimeUnit::kWeek) {
    days += unit == TimeUnit::kWeek ? amount * 7 : amount;
  } else {
    const int64_t months = unit == TimeUnit::kYear      ? amount * 12
                           : unit == TimeUnit::kQuarter ? amount * 3
                                                        : amount;
    const int64_t month_index = p.year * 12 + (p.month - 1) + months;
    const int64_t year = month_index >= 0 ? month_index / 12 : -((-month_index + 11) / 12);
    const int month = static_cast<int>(month_index - year * 12) + 1;
    // The last day of the target month caps the day (2020-10-31 + 1 month = 2020-11-30).
    const int days_in_month = static_cast<int>(
        DaysFromCivil(month == 12 ? year + 1 : year, month == 12 ? 1 : month + 1, 1) -
        DaysFromCivil(year, month, 1));
    days = DaysFromCivil(year, month, std::min(p.day, days_in_month));
  }
  int64_t local_result = 0;
  if (MultiplyOverflows(days, kMillisPerDay, &local_result) ||
      __builtin_add_overflow(local_result, ms_of_day, &local_result)) {
    return overflowed;
  }
  return zone.LocalToUtc(local_result);
}

// $dateAdd / $dateSubtract operands: [startDate, unit, amount, timezone].
Result<Value> EvalDateAdd(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value start, op.Eval(0, vars));
  if (start.nullish()) return Value::Null();
  CAIRN_ASSIGN_OR_RETURN(Value unit_value, op.Eval(1, vars));
  if (unit_value.nullish()) return Value::Null();
  CAIRN_ASSIGN_OR_RETURN(TimeUnit unit, ParseTimeUnit(unit_value, op.name()));
  CAIRN_ASSIGN_OR_RETURN(Value amount_value, op.Eval(2, vars));
  if (amount_value.nullish()) return Value::Null();
  CAIRN_ASSIGN_OR_RETURN(std::optional<TimeZone> zone, EvalTimeZone(op, 3, vars));
  if (!zone) return Value::Null();
  const std::string name(op.name());
  const bson_type_t type = start.type();
  if (type != BSON_TYPE_DATE_TIME && type != BSON_TYPE_TIMESTAMP && type != BSON_TYPE_OID) {
    return Status(ErrorCode::kLocation5166403,
                  name + " requires startDate to be convertible to a date");
  }
  if (!IsIntegral64(amount_value)) {
    return Status(ErrorCode::kLocation5166405, name + " expects integer amount of time units");
  }
  CAIRN_ASSIGN_OR_RETURN(int64_t millis, DateMillis(start));
  CAIRN_ASSIGN_OR_RETURN(int64_t amount, CoerceToLong(amount_value));
  if (op.name() == "$dateSubtract") {
    if (amount == INT64_MIN) {
      return Status(ErrorCode::kLocation6045000,
                    "invalid $dateSubtract 'amount' parameter value: " + std::to_string(amount));
    }
    amount = -amount;
  }
  CAIRN_ASSIGN_OR_RETURN(int64_t result, DateAdd(millis, unit, amount, *zone));
  return Value::Date(result);
}

// A date operand of $dateDiff / $dateTrunc (5166307 / 5439012 for other types).
Result<int64_t> DateOperand(const Value& v, ErrorCode code, std::string_view op,
                            std::string_view parameter) {
  const bson_type_t type = v.type();
  if (type != BSON_TYPE_DATE_TIME && type != BSON_TYPE_TIMESTAMP && type != BSON_TYPE_OID) {
    return Status(code, std::string(op) + " requires '" + std::string(parameter) +
                            "' to be a date, but got " + TypeNameOf(v));
  }
  return DateMillis(v);
}

// dateDiff: the unit boundaries crossed from `start` to `end` in `zone`.
Result<int64_t> DateDiff(int64_t start, int64_t end, TimeUnit unit, const TimeZone& zone,
                         int start_of_week) {
  if (unit == TimeUnit::kMillisecond) {
    int64_t out = 0;
    if (__builtin_sub_overflow(end, start, &out)) {
      return Status(ErrorCode::kLocation5166308, "dateDiff overflowed");
    }
    return out;
  }
  const DateParts s = zone.Breakdown(start);
  const DateParts e = zone.Breakdown(end);
  const LocalDate sd = DateOf(s), ed = DateOf(e);
  const int64_t offset_change = s.utc_offset_seconds - e.utc_offset_seconds;
  const int64_t hours = e.hour - s.hour + DiffDays(sd, ed) * 24;
  const int64_t minutes = e.minute - s.minute + hours * 60;
  switch (unit) {
    case TimeUnit::kYear:
      return DiffYears(sd, ed);
    case TimeUnit::kQuarter:
      return DiffQuarters(sd, ed);
    case TimeUnit::kMonth:
      return DiffMonths(sd, ed);
    case TimeUnit::kWeek:
      return DiffWeeks(sd, ed, start_of_week);
    case TimeUnit::kDay:
      return DiffDays(sd, ed);
    case TimeUnit::kHour:
      return hours + offset_change / 3600;
    case TimeUnit::kMinute:
      return minutes + offset_change / 60;
    case TimeUnit::kSecond:
      return e.second - s.second + minutes * 60 + offset_change;
    case TimeUnit::kMillisecond:
      break;
  }
  return int64_t{0};
}

// The unit of $dateDiff / $dateTrunc, evaluated; nullopt when nullish.
Result<std::optional<TimeUnit>> EvalUnit(const OperatorExpression& op, size_t slot,
                                         Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value unit_value, op.Eval(slot, vars));
  if (unit_value.nullish()) return std::optional<TimeUnit>();
  CAIRN_ASSIGN_OR_RETURN(TimeUnit unit, ParseTimeUnit(unit_value, op.name()));
  return std::optional<TimeUnit>(unit);
}

// startOfWeek (used only with unit week): Sunday when absent; 0 when nullish (null result).
Result<int> EvalStartOfWeek(const OperatorExpression& op, size_t slot, TimeUnit unit,
                            Variables* vars) {
  if (unit != TimeUnit::kWeek || !op.has(slot)) return kSunday;
  CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(slot, vars));
  if (v.nullish()) return 0;
  return ParseDayOfWeek(v, op.name());
}

// $dateDiff operands: [startDate, endDate, unit, timezone, startOfWeek]. MongoDB 7.0's order:
// the nullish checks (startOfWeek read only for the unit "week"), the timezone, the date types,
// then the unit and startOfWeek values.
Result<Value> EvalDateDiff(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value start, op.Eval(0, vars));
  if (start.nullish()) return Value::Null();
  CAIRN_ASSIGN_OR_RETURN(Value end, op.Eval(1, vars));
  if (end.nullish()) return Value::Null();
  CAIRN_ASSIGN_OR_RETURN(Value unit_value, op.Eval(2, vars));
  if (unit_value.nullish()) return Value::Null();
  const bool week = unit_value.is_string() && unit_value.string() == "week";
  Value start_of_week_value;
  if (week && op.has(4)) {
    CAIRN_ASSIGN_OR_RETURN(start_of_week_value, op.Eval(4, vars));
    if (start_of_week_value.nullish()) return Value::Null();
  }
  CAIRN_ASSIGN_OR_RETURN(std::optional<TimeZone> zone, EvalTimeZoneWithContext(op, 3, vars));
  if (!zone) return Value::Null();
  CAIRN_ASSIGN_OR_RETURN(int64_t start_millis,
                         DateOperand(start, ErrorCode::kLocation5166307, op.name(), "startDate"));
  CAIRN_ASSIGN_OR_RETURN(int64_t end_millis,
                         DateOperand(end, ErrorCode::kLocation5166307, op.name(), "endDate"));
  CAIRN_ASSIGN_OR_RETURN(TimeUnit unit, ParseTimeUnit(unit_value, op.name()));
  int start_of_week = kSunday;
  if (!start_of_week_value.missing()) {
    CAIRN_ASSIGN_OR_RETURN(start_of_week, ParseDayOfWeek(start_of_week_value, op.name()));
  }
  CAIRN_ASSIGN_OR_RETURN(int64_t diff,
                         DateDiff(start_millis, end_millis, unit, *zone, start_of_week));
  return Value::Int64(diff);
}

// truncateDate: the lower bound of the bin of `binSize` units `millis` falls in.
Result<int64_t> TruncateDate(int64_t millis, TimeUnit unit, int64_t bin_size, const TimeZone& zone,
                             int start_of_week) {
  const Status overflowed(ErrorCode::kLocation5439000, "dateTrunc overflowed");
  // The reference point: 2000-01-01T00:00 local time, moved to the first start of a week.
  constexpr int64_t kReferenceUtcMillis = 946684800000;  // 2000-01-01T00:00:00Z
  int64_t reference =
      kReferenceUtcMillis - int64_t{zone.OffsetSeconds(kReferenceUtcMillis)} * kMillisPerSecond;
  LocalDate reference_date{2000, 1, 1};
  if (unit == TimeUnit::kWeek) {
    const int reference_position = (kSaturday - start_of_week + 7) % 7;  // 2000-01-01: Saturday
    const int days_to_adjust = (7 - reference_position) % 7;
    reference += days_to_adjust * kMillisPerDay;
    reference_date.day += days_to_adjust;
  }
  int64_t unit_millis = 0;
  switch (unit) {
    case TimeUnit::kMillisecond:
      unit_millis = 1;
      break;
    case TimeUnit::kSecond:
      unit_millis = kMillisPerSecond;
      break;
    case TimeUnit::kMinute:
      unit_millis = kMillisPerMinute;
      break;
    case TimeUnit::kHour:
      unit_millis = kMillisPerHour;
      break;
    default:
      break;
  }
  if (unit_millis != 0) {
    int64_t bin_millis = 0;
    if (MultiplyOverflows(bin_size, unit_millis, &bin_millis)) {
      return Status(ErrorCode::kLocation5439002, "dateTrunc overflowed");
    }
    int64_t shifted = 0;
    if (__builtin_sub_overflow(millis, reference, &shifted)) return overflowed;
    int64_t out = 0;
    if (__builtin_sub_overflow(millis, FloorMod(shifted, bin_millis), &out)) {
      return Status(ErrorCode::kLocation5439001, "dateTrunc overflowed");
    }
    return out;
  }
  if (bin_size > 100'000'000'000) {
    return Status(ErrorCode::kLocation5439006, "dateTrunc unsupported binSize value");
  }
  const LocalDate date = DateOf(zone.Breakdown(millis));
  int64_t distance = 0;
  switch (unit) {
    case TimeUnit::kDay:
      distance = DiffDays(reference_date, date);
      break;
    case TimeUnit::kWeek:
      distance = DiffWeeks(reference_date, date, start_of_week);
      break;
    case TimeUnit::kMonth:
      distance = DiffMonths(reference_date, date);
      break;
    case TimeUnit::kQuarter:
      distance = DiffQuarters(reference_date, date);
      break;
    default:
      distance = DiffYears(reference_date, date);
      break;
  }
  const int64_t bin_start = distance - FloorMod(distance, bin_size);
  return DateAdd(reference, unit, bin_start, zone);
}

// $dateTrunc operands: [date, unit, binSize, timezone, startOfWeek].
Result<Value> EvalDateTrunc(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value date, op.Eval(0, vars));
  if (date.nullish()) return Value::Null();
  int64_t bin_size = 1;
  if (op.has(2)) {
    CAIRN_ASSIGN_OR_RETURN(Value bin, op.Eval(2, vars));
    if (bin.nullish()) return Value::Null();
    if (!IsIntegral64(bin)) {
      return Status(ErrorCode::kLocation5439017,
                    "$dateTrunc requires 'binSize' to be a 64-bit integer, but got value '" +
                        ValueToString(bin) + "' of type " + TypeNameOf(bin));
    }
    CAIRN_ASSIGN_OR_RETURN(bin_size, CoerceToLong(bin));
    if (bin_size <= 0) {
      return Status(ErrorCode::kLocation5439018,
                    "$dateTrunc requires 'binSize' to be greater than 0, but got value " +
                        std::to_string(bin_size));
    }
  }
  CAIRN_ASSIGN_OR_RETURN(std::optional<TimeUnit> unit, EvalUnit(op, 1, vars));
  if (!unit) return Value::Null();
  CAIRN_ASSIGN_OR_RETURN(int start_of_week, EvalStartOfWeek(op, 4, *unit, vars));
  if (start_of_week == 0) return Value::Null();
  CAIRN_ASSIGN_OR_RETURN(std::optional<TimeZone> zone, EvalTimeZoneWithContext(op, 3, vars));
  if (!zone) return Value::Null();
  CAIRN_ASSIGN_OR_RETURN(int64_t millis,
                         DateOperand(date, ErrorCode::kLocation5439012, op.name(), "date"));
  CAIRN_ASSIGN_OR_RETURN(int64_t result,
                         TruncateDate(millis, *unit, bin_size, *zone, start_of_week));
  return Value::Date(result);
}

// The named arguments `names` of `arg` as operand slots in that order (absent ones null).
// `not_object` / `unknown` are the operator's errors; `unknown_suffix` ends the unknown message.
Result<std::vector<ExpressionPtr>> ParseSlots(const bson_iter_t* arg, std::string_view name,
                                              ParseContext& ctx,
                                              std::initializer_list<std::string_view> names,
                                              Status not_object, ErrorCode unknown,
                                              std::string_view unknown_suffix) {
  if (!BSON_ITER_HOLDS_DOCUMENT(arg)) return not_object;
  NamedArguments args;
  std::string_view unknown_name;
  if (!args.Collect(arg, names, &unknown_name)) {
    return Status(unknown, "Unrecognized argument to " + std::string(name) + ": " +
                               std::string(unknown_name) + std::string(unknown_suffix));
  }
  std::vector<ExpressionPtr> slots;
  for (std::string_view slot_name : names) {
    bson_iter_t it;
    slots.emplace_back();
    if (args.Get(slot_name, &it)) {
      CAIRN_ASSIGN_OR_RETURN(slots.back(), ParseOperand(&it, ctx));
    }
  }
  return slots;
}

}  // namespace

Result<ExpressionPtr> ParseDateAdd(const bson_iter_t* arg, std::string_view name,
                                   ParseContext& ctx) {
  const std::string op(name);
  CAIRN_ASSIGN_OR_RETURN(
      std::vector<ExpressionPtr> slots,
      ParseSlots(arg, name, ctx, {"startDate", "unit", "amount", "timezone"},
                 Status(ErrorCode::kLocation5166400, op + " expects an object as its argument"),
                 ErrorCode::kLocation5166401,
                 ". Expected arguments are startDate, unit, amount, and optionally timezone."));
  if (!slots[0] || !slots[1] || !slots[2]) {
    return Status(ErrorCode::kLocation5166402,
                  op + " requires startDate, unit, and amount to be present");
  }
  return ExpressionPtr(std::make_unique<OperatorExpression>(name, std::move(slots), EvalDateAdd));
}

Result<ExpressionPtr> ParseDateDiff(const bson_iter_t* arg, std::string_view name,
                                    ParseContext& ctx) {
  CAIRN_ASSIGN_OR_RETURN(
      std::vector<ExpressionPtr> slots,
      ParseSlots(
          arg, name, ctx, {"startDate", "endDate", "unit", "timezone", "startOfWeek"},
          Status(ErrorCode::kLocation5166301, "$dateDiff only supports an object as its argument"),
          ErrorCode::kLocation5166302, ""));
  if (!slots[0]) {
    return Status(ErrorCode::kLocation5166303, "Missing 'startDate' parameter to $dateDiff");
  }
  if (!slots[1]) {
    return Status(ErrorCode::kLocation5166304, "Missing 'endDate' parameter to $dateDiff");
  }
  if (!slots[2])
    return Status(ErrorCode::kLocation5166305, "Missing 'unit' parameter to $dateDiff");
  return ExpressionPtr(std::make_unique<OperatorExpression>(name, std::move(slots), EvalDateDiff));
}

Result<ExpressionPtr> ParseDateTrunc(const bson_iter_t* arg, std::string_view name,
                                     ParseContext& ctx) {
  CAIRN_ASSIGN_OR_RETURN(
      std::vector<ExpressionPtr> slots,
      ParseSlots(
          arg, name, ctx, {"date", "unit", "binSize", "timezone", "startOfWeek"},
          Status(ErrorCode::kLocation5439007, "$dateTrunc only supports an object as its argument"),
          ErrorCode::kLocation5439008,
          ". Expected arguments are date, unit, and optionally, binSize, timezone, "
          "startOfWeek"));
  if (!slots[0])
    return Status(ErrorCode::kLocation5439009, "Missing 'date' parameter to $dateTrunc");
  if (!slots[1])
    return Status(ErrorCode::kLocation5439010, "Missing 'unit' parameter to $dateTrunc");
  return ExpressionPtr(std::make_unique<OperatorExpression>(name, std::move(slots), EvalDateTrunc));
}

}  // namespace cairn::query::ops
