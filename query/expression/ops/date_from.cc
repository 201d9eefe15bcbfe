// Dates built from pieces: $dateFromParts (calendar or ISO week fields, each carried over as
// MongoDB's timelib does: month 14 is February of the next year, hour 25 the next day) and
// $dateFromString (MongoDB's default ISO-8601-style forms, or an explicit format of the
// $dateToString specifiers), both in a time zone (timezone.h). Codes and messages are MongoDB
// 7.0's: 40515 / 31034 / 40523 / 31095 for parts out of type or range, 241 ConversionFailure for
// strings that do not parse (which onError catches). The string grammar is a subset of timelib's
// (see ParseDefault); parse errors name the first offending position as timelib does, with
// Cairn's wording of the cause.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "query/expression/operator.h"

namespace cairn::query::ops {

namespace {

constexpr int64_t kMillisPerDay = 86400000;

// ---- $dateFromParts ----

enum PartSlot {
  kYear,
  kMonth,
  kDay,
  kHour,
  kMinute,
  kSecond,
  kMillisecond,
  kIsoWeekYear,
  kIsoWeek,
  kIsoDayOfWeek,
  kTimeZone,
  kPartSlots
};
constexpr std::string_view kPartNames[kPartSlots] = {
    "year",        "month",       "day",     "hour",         "minute",  "second",
    "millisecond", "isoWeekYear", "isoWeek", "isoDayOfWeek", "timezone"};

// evaluateNumberWithDefault(AndBounds): the part's integral value, its default when absent,
// nullopt when nullish (the result is then null).
Result<std::optional<int64_t>> EvalPart(const OperatorExpression& op, int slot, int64_t fallback,
                                        bool bounded, Variables* vars) {
  if (!op.has(static_cast<size_t>(slot))) return std::optional<int64_t>(fallback);
  CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(static_cast<size_t>(slot), vars));
  if (v.nullish()) return std::optional<int64_t>();
  const std::string name(kPartNames[slot]);
  if (!IsIntegral64(v)) {
    return Status(ErrorCode::kLocation40515, "'" + name + "' must evaluate to an integer, found " +
                                                 TypeNameOf(v) + " with value " + ValueToString(v));
  }
  CAIRN_ASSIGN_OR_RETURN(int64_t value, CoerceToLong(v));
  if (bounded && (value < -32768 || value > 32767)) {
    return Status(ErrorCode::kLocation31034,
                  "'" + name + "' must evaluate to a value in the range [-32768, 32767]; value " +
                      std::to_string(value) + " is not in range");
  }
  return std::optional<int64_t>(value);
}

// Days since the epoch of a calendar date whose month and day may be out of range.
int64_t CarriedDays(int64_t year, int64_t month, int64_t day) {
  const int64_t month_index = year * 12 + (month - 1);
  const int64_t y = month_index >= 0 ? month_index / 12 : -((-month_index + 11) / 12);
  const int m = static_cast<int>(month_index - y * 12) + 1;
  return DaysFromCivil(y, m, 1) + (day - 1);
}

// Days since the epoch of an ISO week date (week 1 holds January 4th; weeks start on Monday).
int64_t IsoWeekDays(int64_t iso_year, int64_t week, int64_t day_of_week) {
  const int64_t jan4 = DaysFromCivil(iso_year, 1, 4);
  const int64_t jan4_weekday = ((jan4 + 3) % 7 + 7) % 7;  // 0 = Monday
  return jan4 - jan4_weekday + (week - 1) * 7 + (day_of_week - 1);
}

int64_t LocalMillis(int64_t days, int64_t hour, int64_t minute, int64_t second,
                    int64_t millisecond) {
  return days * kMillisPerDay + hour * 3600000 + minute * 60000 + second * 1000 + millisecond;
}

Result<Value> EvalDateFromParts(const OperatorExpression& op, Variables* vars) {
  int64_t time[4];  // hour, minute, second, millisecond
  const int time_slots[4] = {kHour, kMinute, kSecond, kMillisecond};
  for (int i = 0; i < 4; ++i) {
    CAIRN_ASSIGN_OR_RETURN(std::optional<int64_t> v,
                           EvalPart(op, time_slots[i], 0, /*bounded=*/i < 2, vars));
    if (!v) return Value::Null();
    time[i] = *v;
  }
  CAIRN_ASSIGN_OR_RETURN(std::optional<TimeZone> zone, EvalTimeZone(op, kTimeZone, vars));
  if (!zone) return Value::Null();
  int64_t days = 0;
  if (op.has(kYear)) {
    CAIRN_ASSIGN_OR_RETURN(std::optional<int64_t> year, EvalPart(op, kYear, 1970, false, vars));
    if (!year) return Value::Null();
    CAIRN_ASSIGN_OR_RETURN(std::optional<int64_t> month, EvalPart(op, kMonth, 1, true, vars));
    if (!month) return Value::Null();
    CAIRN_ASSIGN_OR_RETURN(std::optional<int64_t> day, EvalPart(op, kDay, 1, true, vars));
    if (!day) return Value::Null();
    if (*year < 1 || *year > 9999) {
      return Status(ErrorCode::kLocation40523,
                    "'year' must evaluate to an integer in the range 1 to 9999, found " +
                        std::to_string(*year));
    }
    days = CarriedDays(*year, *month, *day);
  } else {
    CAIRN_ASSIGN_OR_RETURN(std::optional<int64_t> year,
                           EvalPart(op, kIsoWeekYear, 1970, false, vars));
    if (!year) return Value::Null();
    CAIRN_ASSIGN_OR_RETURN(std::optional<int64_t> week, EvalPart(op, kIsoWeek, 1, true, vars));
    if (!week) return Value::Null();
    CAIRN_ASSIGN_OR_RETURN(std::optional<int64_t> day, EvalPart(op, kIsoDayOfWeek, 1, true, vars));
    if (!day) return Value::Null();
    if (*year < 1 || *year > 9999) {
      return Status(ErrorCode::kLocation31095,
                    "'isoWeekYear' must evaluate to an integer in the range 1 to 9999, found " +
                        std::to_string(*year));
    }
    days = IsoWeekDays(*year, *week, *day);
  }
  return Value::Date(zone->LocalToUtc(LocalMillis(days, time[0], time[1], time[2], time[3])));
}

// ---- $dateFromString ----

// What a date string said, before it is resolved in a zone.
struct ParsedDate {
  int64_t year = 0;
  int64_t month = 0, day = 0;  // 0: not given
  int64_t hour = 0, minute = 0, second = 0, millisecond = 0;
  bool has_date = false;
  // Day-of-year (%j) and ISO week (%G %V %u) forms.
  int64_t day_of_year = 0;
  int64_t iso_year = 0, iso_week = 0, iso_day = 0;
  // Zone information in the string.
  enum class Zone { kNone, kOffset, kNamed } zone = Zone::kNone;
  int32_t offset_seconds = 0;
  std::string zone_name;
  std::optional<TimeZone> named_zone;
};

Status ParseError(std::string_view text, size_t position, std::string_view message) {
  return Status(ErrorCode::kConversionFailure, "Error parsing date string '" + std::string(text) +
                                                   "'; " + std::to_string(position) + ": " +
                                                   std::string(message));
}

// Reads exactly `width` digits (or 1..width when `exact` is false).
bool ReadDigits(std::string_view s, size_t* pos, int width, bool exact, int64_t* out) {
  size_t start = *pos;
  int64_t value = 0;
  while (*pos < s.size() && *pos - start < static_cast<size_t>(width) &&
         std::isdigit(static_cast<unsigned char>(s[*pos]))) {
    value = value * 10 + (s[*pos] - '0');
    ++*pos;
  }
  size_t read = *pos - start;
  if (read == 0 || (exact && read != static_cast<size_t>(width))) {
    *pos = start;
    return false;
  }
  *out = value;
  return true;
}

// "+hh", "+hhmm", "+hh:mm" (or '-'); false when none is at *pos.
bool ReadOffset(std::string_view s, size_t* pos, int32_t* seconds) {
  size_t p = *pos;
  if (p >= s.size() || (s[p] != '+' && s[p] != '-')) return false;
  const int sign = s[p] == '-' ? -1 : 1;
  ++p;
  int64_t hours = 0, minutes = 0;
  if (!ReadDigits(s, &p, 2, true, &hours)) return false;
  if (p < s.size() && s[p] == ':') {
    size_t q = p + 1;
    if (ReadDigits(s, &q, 2, true, &minutes)) p = q;
  } else {
    ReadDigits(s, &p, 2, true, &minutes);
  }
  *seconds = static_cast<int32_t>(sign * (hours * 3600 + minutes * 60));
  *pos = p;
  return true;
}

// A trailing zone designator: Z, UTC/GMT, an offset, or a zone name (Olson or abbreviation
// ICU knows). Returns false with *pos unchanged when there is none.
Status ReadZone(std::string_view s, size_t* pos, ParsedDate* out) {
  size_t p = *pos;
  if (p < s.size() && (s[p] == 'Z' || s[p] == 'z') &&
      (p + 1 == s.size() || !std::isalpha(static_cast<unsigned char>(s[p + 1])))) {
    out->zone = ParsedDate::Zone::kNamed;
    out->zone_name = "Z";
    out->named_zone = TimeZone();
    *pos = p + 1;
    return Status::OK();
  }
  int32_t offset = 0;
  if (ReadOffset(s, &p, &offset)) {
    out->zone = ParsedDate::Zone::kOffset;
    out->offset_seconds = offset;
    *pos = p;
    return Status::OK();
  }
  size_t end = p;
  while (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '/' ||
                            s[end] == '_' || s[end] == '-' || s[end] == '+')) {
    ++end;
  }
  if (end == p || !std::isalpha(static_cast<unsigned char>(s[p]))) return Status::OK();
  std::string_view name = s.substr(p, end - p);
  Result<TimeZone> zone = TimeZone::Parse(name);
  if (!zone.ok()) {
    return ParseError(s, p, "The timezone could not be found in the database");
  }
  out->zone = ParsedDate::Zone::kNamed;
  out->zone_name = std::string(name);
  out->named_zone = *zone;
  *pos = end;
  return Status::OK();
}

void SkipSpaces(std::string_view s, size_t* pos) {
  while (*pos < s.size() && std::isspace(static_cast<unsigned char>(s[*pos]))) ++*pos;
}

// HH:MM[:SS[.fff...]] at *pos; false (pos unchanged) when there is none.
bool ReadTime(std::string_view s, size_t* pos, ParsedDate* out) {
  size_t p = *pos;
  int64_t hour = 0, minute = 0;
  if (!ReadDigits(s, &p, 2, false, &hour) || p >= s.size() || s[p] != ':') return false;
  ++p;
  if (!ReadDigits(s, &p, 2, true, &minute)) return false;
  out->hour = hour;
  out->minute = minute;
  if (p < s.size() && s[p] == ':') {
    size_t q = p + 1;
    int64_t second = 0;
    if (ReadDigits(s, &q, 2, true, &second)) {
      out->second = second;
      p = q;
      if (p < s.size() && (s[p] == '.' || s[p] == ',') && p + 1 < s.size() &&
          std::isdigit(static_cast<unsigned char>(s[p + 1]))) {
        ++p;
        int64_t millis = 0;
        int digits = 0;
        while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p]))) {
          if (digits < 3) millis = millis * 10 + (s[p] - '0');
          ++digits;
          ++p;
        }
        for (int i = digits; i < 3; ++i) millis *= 10;
        out->millisecond = millis;
      }
    }
  }
  *pos = p;
  return true;
}

// The default grammar (a subset of timelib's strtotime): an ISO date YYYY-MM-DD (or YYYY/MM/DD,
// MM/DD/YYYY), optionally followed by 'T' or spaces and a time HH:MM[:SS[.fff]], optionally
// followed by a zone (Z, an offset, UTC/GMT or a zone name); or a time alone (an incomplete
// date, as MongoDB reports it).
Status ParseDefault(std::string_view s, ParsedDate* out) {
  size_t pos = 0;
  SkipSpaces(s, &pos);
  if (pos == s.size()) return ParseError(s, 0, "Empty string");
  size_t p = pos;
  int64_t a = 0, b = 0, c = 0;
  if (ReadDigits(s, &p, 4, true, &a) && p < s.size() && (s[p] == '-' || s[p] == '/')) {
    const char separator = s[p++];
    if (!ReadDigits(s, &p, 2, false, &b)) return ParseError(s, p, "Unexpected character");
    if (p < s.size() && s[p] == separator) {
      ++p;
      if (!ReadDigits(s, &p, 2, false, &c)) return ParseError(s, p, "Unexpected character");
    } else {
      c = 1;  // YYYY-MM: the first of the month
    }
    out->year = a;
    out->month = b;
    out->day = c;
    out->has_date = true;
    pos = p;
  } else {
    p = pos;
    if (ReadDigits(s, &p, 2, false, &a) && p < s.size() && s[p] == '/' &&
        ReadDigits(s, &++p, 2, false, &b) && p < s.size() && s[p] == '/' &&
        ReadDigits(s, &++p, 4, true, &c)) {
      out->month = a;
      out->day = b;
      out->year = c;
      out->has_date = true;
      pos = p;
    }
  }
  if (out->has_date) {
    if (out->month < 1 || out->month > 12 || out->day < 1 || out->day > 31) {
      return ParseError(s, pos, "Unexpected character");
    }
    if (pos < s.size() && (s[pos] == 'T' || s[pos] == 't')) {
      size_t q = pos + 1;
      if (!ReadTime(s, &q, out)) return ParseError(s, pos, "Unexpected character");
      pos = q;
    } else {
      size_t q = pos;
      SkipSpaces(s, &q);
      if (q > pos && ReadTime(s, &q, out)) pos = q;
    }
  } else if (!ReadTime(s, &pos, out)) {
    return ParseError(s, pos, "Unexpected character");
  }
  if (out->hour > 24 || out->minute > 59 || out->second > 60) {
    return ParseError(s, pos, "Unexpected character");
  }
  size_t q = pos;
  SkipSpaces(s, &q);
  if (q < s.size()) {
    size_t before = q;
    CAIRN_RETURN_IF_ERROR(ReadZone(s, &q, out));
    if (q == before) return ParseError(s, q, "Unexpected character");
    pos = q;
    SkipSpaces(s, &pos);
    if (pos < s.size()) {
      return ParseError(s, pos,
                        out->zone != ParsedDate::Zone::kNone ? "Double timezone specification"
                                                             : "Unexpected character");
    }
  }
  return Status::OK();
}

constexpr const char* kMonthNames[] = {"January",   "February", "March",    "April",
                                       "May",       "June",     "July",     "August",
                                       "September", "October",  "November", "December"};

// Parses `s` with an explicit format of $dateToString's specifiers (validated already).
Status ParseWithFormat(std::string_view s, std::string_view format, ParsedDate* out) {
  size_t pos = 0;
  auto number = [&](int width, bool exact, int64_t* target, const char* what) -> Status {
    if (!ReadDigits(s, &pos, width, exact, target)) return ParseError(s, pos, what);
    return Status::OK();
  };
  int64_t ignored = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      if (pos >= s.size() || s[pos] != format[i]) {
        return ParseError(s, pos, "The format separator does not match");
      }
      ++pos;
      continue;
    }
    switch (format[++i]) {
      case 'Y':
        CAIRN_RETURN_IF_ERROR(number(4, true, &out->year, "A four digit year could not be found"));
        out->has_date = true;
        break;
      case 'm':
        CAIRN_RETURN_IF_ERROR(
            number(2, false, &out->month, "A two digit month could not be found"));
        break;
      case 'd':
        CAIRN_RETURN_IF_ERROR(number(2, false, &out->day, "A two digit day could not be found"));
        break;
      case 'H':
        CAIRN_RETURN_IF_ERROR(number(2, false, &out->hour, "A two digit hour could not be found"));
        break;
      case 'M':
        CAIRN_RETURN_IF_ERROR(
            number(2, false, &out->minute, "A two digit minute could not be found"));
        break;
      case 'S':
        CAIRN_RETURN_IF_ERROR(
            number(2, false, &out->second, "A two digit second could not be found"));
        break;
      case 'L':
        CAIRN_RETURN_IF_ERROR(
            number(3, false, &out->millisecond, "A three digit millisecond could not be found"));
        break;
      case 'j':
        CAIRN_RETURN_IF_ERROR(
            number(3, false, &out->day_of_year, "A three digit day-of-year could not be found"));
        break;
      case 'G':
        CAIRN_RETURN_IF_ERROR(
            number(4, true, &out->iso_year, "A four digit ISO year could not be found"));
        break;
      case 'V':
        CAIRN_RETURN_IF_ERROR(
            number(2, false, &out->iso_week, "A two digit ISO week could not be found"));
        break;
      case 'u':
        CAIRN_RETURN_IF_ERROR(
            number(1, true, &out->iso_day, "A single digit day of week could not be found"));
        break;
      case 'U':
        CAIRN_RETURN_IF_ERROR(number(2, false, &ignored, "A two digit week could not be found"));
        break;
      case 'w':
        CAIRN_RETURN_IF_ERROR(
            number(1, true, &ignored, "A single digit day of week could not be found"));
        break;
      case 'b':
      case 'B': {
        bool found = false;
        for (int m = 0; m < 12 && !found; ++m) {
          std::string_view full = kMonthNames[m];
          for (std::string_view name : {full, full.substr(0, 3)}) {
            if (s.size() - pos >= name.size() &&
                std::equal(name.begin(), name.end(), s.begin() + static_cast<long>(pos),
                           [](char x, char y) {
                             return std::tolower(static_cast<unsigned char>(x)) ==
                                    std::tolower(static_cast<unsigned char>(y));
                           })) {
              out->month = m + 1;
              pos += name.size();
              found = true;
              break;
            }
          }
        }
        if (!found) return ParseError(s, pos, "A textual month could not be found");
        break;
      }
      case 'z':
      case 'Z': {
        int32_t offset = 0;
        size_t p = pos;
        if (format[i] == 'Z') {
          // Minutes from UTC: +hhh / -hhh.
          int64_t minutes = 0;
          if (p < s.size() && (s[p] == '+' || s[p] == '-')) {
            const int sign = s[p] == '-' ? -1 : 1;
            ++p;
            if (ReadDigits(s, &p, 4, false, &minutes)) {
              offset = static_cast<int32_t>(sign * minutes * 60);
              pos = p;
              out->zone = ParsedDate::Zone::kOffset;
              out->offset_seconds = offset;
              break;
            }
          }
          return ParseError(s, pos, "The timezone could not be found in the database");
        }
        if (ReadOffset(s, &p, &offset)) {
          pos = p;
          out->zone = ParsedDate::Zone::kOffset;
          out->offset_seconds = offset;
          break;
        }
        size_t before = pos;
        CAIRN_RETURN_IF_ERROR(ReadZone(s, &pos, out));
        if (pos == before) {
          return ParseError(s, pos, "The timezone could not be found in the database");
        }
        break;
      }
      case '%':
        if (pos >= s.size() || s[pos] != '%') {
          return ParseError(s, pos, "The escaped character could not be found");
        }
        ++pos;
        break;
      default:
        break;  // validated earlier
    }
  }
  if (pos < s.size()) return ParseError(s, pos, "Trailing data");
  return Status::OK();
}

// TimeZoneDatabase::fromString's checks after parsing, and the instant.
Result<int64_t> Resolve(std::string_view text, const ParsedDate& p, const TimeZone& zone) {
  int64_t days = 0;
  if (p.iso_year != 0 || p.iso_week != 0 || p.iso_day != 0) {
    days = IsoWeekDays(p.iso_year != 0 ? p.iso_year : 1970, p.iso_week != 0 ? p.iso_week : 1,
                       p.iso_day != 0 ? p.iso_day : 1);
  } else if (p.day_of_year != 0 && p.has_date) {
    days = DaysFromCivil(p.year, 1, 1) + p.day_of_year - 1;
  } else {
    if (!p.has_date || p.month == 0 || p.day == 0) {
      return Status(ErrorCode::kConversionFailure,
                    "an incomplete date/time string has been found, with elements missing: '" +
                        std::string(text) + "'");
    }
    days = CarriedDays(p.year, p.month, p.day);
  }
  if (!zone.IsUtc() && p.zone != ParsedDate::Zone::kNone) {
    if (p.zone == ParsedDate::Zone::kOffset) {
      return Status(ErrorCode::kConversionFailure,
                    "you cannot pass in a date/time string with GMT offset together with a "
                    "timezone argument");
    }
    return Status(ErrorCode::kConversionFailure,
                  "you cannot pass in a date/time string with time zone information ('" +
                      p.zone_name + "') together with a timezone argument");
  }
  const int64_t local = LocalMillis(days, p.hour, p.minute, p.second, p.millisecond);
  switch (p.zone) {
    case ParsedDate::Zone::kOffset:
      return local - int64_t{p.offset_seconds} * 1000;
    case ParsedDate::Zone::kNamed:
      return p.named_zone->LocalToUtc(local);
    case ParsedDate::Zone::kNone:
      break;
  }
  return zone.LocalToUtc(local);
}

// $dateFromString operands: [dateString, timezone, format, onNull, onError].
Result<Value> EvalDateFromString(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value text, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value format, EvalDateFormat(op, 2, ErrorCode::kLocation40684, vars));
  CAIRN_ASSIGN_OR_RETURN(std::optional<TimeZone> zone, EvalTimeZone(op, 1, vars));
  if (text.nullish()) {
    if (op.has(3)) return op.Eval(3, vars);
    return Value::Null();
  }
  auto convert = [&]() -> Result<Value> {
    if (!text.is_string()) {
      return Status(ErrorCode::kConversionFailure,
                    "$dateFromString requires that 'dateString' be a string, found: " +
                        TypeNameOf(text) + " with value " + ValueToString(text));
    }
    if (!zone) return Value::Null();
    ParsedDate parsed;
    if (op.has(2)) {
      if (format.nullish()) return Value::Null();
      CAIRN_RETURN_IF_ERROR(ParseWithFormat(text.string(), format.string(), &parsed));
    } else {
      CAIRN_RETURN_IF_ERROR(ParseDefault(text.string(), &parsed));
    }
    CAIRN_ASSIGN_OR_RETURN(int64_t millis, Resolve(text.string(), parsed, *zone));
    return Value::Date(millis);
  };
  Result<Value> result = convert();
  if (!result.ok() && result.status().code() == ErrorCode::kConversionFailure && op.has(4)) {
    return op.Eval(4, vars);
  }
  return result;
}

}  // namespace

Result<ExpressionPtr> ParseDateFromParts(const bson_iter_t* arg, std::string_view name,
                                         ParseContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(arg)) {
    return Status(ErrorCode::kLocation40519,
                  "$dateFromParts only supports an object as its argument");
  }
  BsonElement given[kPartSlots];
  bool has[kPartSlots] = {};
  bson_iter_t it;
  IterDocument(arg).Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    int slot = 0;
    while (slot < kPartSlots && kPartNames[slot] != key) ++slot;
    if (slot == kPartSlots) {
      return Status(ErrorCode::kLocation40518,
                    "Unrecognized argument to $dateFromParts: " + std::string(key));
    }
    given[slot] = BsonElement(&it);
    has[slot] = true;
  }
  if (!has[kYear] && !has[kIsoWeekYear]) {
    return Status(ErrorCode::kLocation40516,
                  "$dateFromParts requires either 'year' or 'isoWeekYear' to be present");
  }
  if (has[kYear] && (has[kIsoWeekYear] || has[kIsoWeek] || has[kIsoDayOfWeek])) {
    return Status(ErrorCode::kLocation40489,
                  "$dateFromParts does not allow mixing natural dates with ISO dates");
  }
  if (has[kIsoWeekYear] && (has[kYear] || has[kMonth] || has[kDay])) {
    return Status(ErrorCode::kLocation40525,
                  "$dateFromParts does not allow mixing ISO dates with natural dates");
  }
  std::vector<ExpressionPtr> operands(kPartSlots);
  for (int slot = 0; slot < kPartSlots; ++slot) {
    if (!has[slot]) continue;
    bson_iter_t element = given[slot].iter();
    CAIRN_ASSIGN_OR_RETURN(operands[static_cast<size_t>(slot)], ParseOperand(&element, ctx));
  }
  return ExpressionPtr(
      std::make_unique<OperatorExpression>(name, std::move(operands), EvalDateFromParts));
}

Result<ExpressionPtr> ParseDateFromString(const bson_iter_t* arg, std::string_view name,
                                          ParseContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(arg)) {
    bson_iter_t copy = *arg;
    return Status(ErrorCode::kLocation40540,
                  "$dateFromString only supports an object as an argument, found: " +
                      TypeNameOf(Value::Element(&copy)));
  }
  NamedArguments args;
  std::string_view unknown;
  constexpr std::string_view kSlots[] = {"dateString", "timezone", "format", "onNull", "onError"};
  if (!args.Collect(arg, {"dateString", "timezone", "format", "onNull", "onError"}, &unknown)) {
    return Status(ErrorCode::kLocation40541,
                  "Unrecognized argument to $dateFromString: " + std::string(unknown));
  }
  if (!args.Has("dateString")) {
    return Status(ErrorCode::kLocation40542, "Missing 'dateString' parameter to $dateFromString");
  }
  std::vector<ExpressionPtr> operands(std::size(kSlots));
  for (size_t slot = 0; slot < std::size(kSlots); ++slot) {
    bson_iter_t it;
    if (args.Get(kSlots[slot], &it)) {
      CAIRN_ASSIGN_OR_RETURN(operands[slot], ParseOperand(&it, ctx));
    }
  }
  return ExpressionPtr(
      std::make_unique<OperatorExpression>(name, std::move(operands), EvalDateFromString));
}

}  // namespace cairn::query::ops
