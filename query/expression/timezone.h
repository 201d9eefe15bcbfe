// TimeZone: the time zones of the date expressions — UTC, a fixed UTC offset ("+05:30",
// "-0800", "+03") or an Olson identifier ("America/New_York", through ICU's time zone data) —
// and the calendar breakdown of an instant in one (MongoDB's TimeZone::dateParts, week and ISO
// week rules). Immutable; cheap to copy; thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "common/status.h"

namespace cairn::query {

// The calendar fields of an instant in a time zone (proleptic Gregorian).
struct DateParts {
  int64_t year = 1970;
  int month = 1;  // 1..12
  int day = 1;    // 1..31
  int hour = 0, minute = 0, second = 0, millisecond = 0;
  int day_of_week = 5;      // 1 (Sunday) .. 7 (Saturday)
  int day_of_year = 1;      // 1..366
  int week = 0;             // 0..53: weeks start on Sunday; days before the first Sunday are week 0
  int iso_day_of_week = 4;  // 1 (Monday) .. 7 (Sunday)
  int iso_week = 1;         // 1..53
  int64_t iso_week_year = 1970;
  int32_t utc_offset_seconds = 0;  // of the zone at that instant
};

class TimeZone {
 public:
  TimeZone() = default;  // UTC

  // MongoDB's TimeZoneDatabase::getTimeZone: an offset "+hh", "+hhmm" or "+hh:mm" (or '-'), or a
  // known Olson identifier; anything else is 40485 "unrecognized time zone identifier: "<id>"".
  static Result<TimeZone> Parse(std::string_view id);

  // UTC itself (or a zero offset): $dateToString's default format ends in 'Z' only then.
  bool IsUtc() const { return zone_ == nullptr && fixed_offset_seconds_ == 0; }

  // Offset from UTC, in seconds, at the instant `utc_millis`.
  int32_t OffsetSeconds(int64_t utc_millis) const;

  // The calendar fields of `utc_millis` in this zone.
  DateParts Breakdown(int64_t utc_millis) const;

  // The UTC instant of a local time in this zone (for an ambiguous or skipped local time, the
  // offset in force just before it, as MongoDB's timelib does).
  int64_t LocalToUtc(int64_t local_millis) const;

 private:
  struct Zone;
  static std::shared_ptr<const Zone> LookupOlson(std::string_view id);

  int32_t fixed_offset_seconds_ = 0;
  std::shared_ptr<const Zone> zone_;  // null: the fixed offset
};

// Days since 1970-01-01 of a proleptic Gregorian date (month 1..12, day may overflow), and
// back. Howard Hinnant's civil-date algorithms.
int64_t DaysFromCivil(int64_t year, int month, int day);
void CivilFromDays(int64_t days, int64_t* year, int* month, int* day);

}  // namespace cairn::query
