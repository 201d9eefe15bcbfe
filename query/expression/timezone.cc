// TimeZone (timezone.h): offsets parsed by hand, Olson zones through ICU (icu::TimeZone), whose
// objects are created once per identifier and shared (creating one is costly; getOffset on a
// const zone is thread-safe).
#include "query/expression/timezone.h"
#include "common/mutex.h"

#include <mutex>
#include <string>
#include <unordered_map>

#include <unicode/timezone.h>
#include <unicode/unistr.h>

namespace cairn::query {

struct TimeZone::Zone {
  std::unique_ptr<icu::TimeZone> icu;
};

namespace {

constexpr int64_t kMillisPerDay = 86400000;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// "+hh", "+hhmm", "+hh:mm" (or '-') → seconds; false when `id` is not one.
bool ParseOffset(std::string_view id, int32_t* seconds) {
  if (id.size() < 3 || (id[0] != '+' && id[0] != '-') || !IsDigit(id[1]) || !IsDigit(id[2])) {
    return false;
  }
  int hours = (id[1] - '0') * 10 + (id[2] - '0');
  int minutes = 0;
  std::string_view rest = id.substr(3);
  if (!rest.empty() && rest[0] == ':') rest.remove_prefix(1);
  if (rest.size() == 2 && IsDigit(rest[0]) && IsDigit(rest[1])) {
    minutes = (rest[0] - '0') * 10 + (rest[1] - '0');
  } else if (!rest.empty() || id.size() == 4) {
    return false;
  }
  *seconds = (id[0] == '-' ? -1 : 1) * (hours * 3600 + minutes * 60);
  return true;
}

}  // namespace

// Olson zones by identifier, created once; null entries remember unknown identifiers.
std::shared_ptr<const TimeZone::Zone> TimeZone::LookupOlson(std::string_view id) {
  static Mutex mu;
  static std::unordered_map<std::string, std::shared_ptr<const Zone>> cache;
  MutexLock lock(&mu);
  auto it = cache.find(std::string(id));
  if (it == cache.end()) {
    std::shared_ptr<Zone> entry;
    icu::UnicodeString name =
        icu::UnicodeString::fromUTF8(icu::StringPiece(id.data(), static_cast<int32_t>(id.size())));
    std::unique_ptr<icu::TimeZone> zone(icu::TimeZone::createTimeZone(name));
    icu::UnicodeString resolved;
    zone->getID(resolved);
    // ICU answers "Etc/Unknown" for identifiers it does not know, and accepts custom
    // "GMT+hh:mm" forms MongoDB's Olson database does not.
    if (resolved != icu::UnicodeString(UCAL_UNKNOWN_ZONE_ID) &&
        !(id.size() > 3 && id.substr(0, 3) == "GMT" && (id[3] == '+' || id[3] == '-'))) {
      entry = std::make_shared<Zone>();
      entry->icu = std::move(zone);
    }
    it = cache.emplace(std::string(id), std::move(entry)).first;
  }
  return it->second;
}

Result<TimeZone> TimeZone::Parse(std::string_view id) {
  TimeZone tz;
  if (ParseOffset(id, &tz.fixed_offset_seconds_)) return tz;
  if (id == "UTC" || id == "GMT" || id == "Z") return tz;
  tz.zone_ = LookupOlson(id);
  if (tz.zone_ == nullptr) {
    return Status(ErrorCode::kLocation40485,
                  "unrecognized time zone identifier: \"" + std::string(id) + "\"");
  }
  return tz;
}

int32_t TimeZone::OffsetSeconds(int64_t utc_millis) const {
  if (zone_ == nullptr) return fixed_offset_seconds_;
  int32_t raw = 0, dst = 0;
  UErrorCode status = U_ZERO_ERROR;
  zone_->icu->getOffset(static_cast<UDate>(utc_millis), false, raw, dst, status);
  if (U_FAILURE(status)) return 0;
  return (raw + dst) / 1000;
}

int64_t TimeZone::LocalToUtc(int64_t local_millis) const {
  if (zone_ == nullptr) return local_millis - int64_t{fixed_offset_seconds_} * 1000;
  // The offset at the guessed instant, refined once (enough away from transitions).
  int64_t guess = local_millis - int64_t{OffsetSeconds(local_millis)} * 1000;
  return local_millis - int64_t{OffsetSeconds(guess)} * 1000;
}

int64_t DaysFromCivil(int64_t year, int month, int day) {
  year -= month <= 2;
  const int64_t era = FloorDiv(year, 400);
  const int64_t yoe = year - era * 400;
  const int64_t mp = (month + 9) % 12;
  const int64_t doy = (153 * mp + 2) / 5 + day - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void CivilFromDays(int64_t days, int64_t* year, int* month, int* day) {
  days += 719468;
  const int64_t era = FloorDiv(days, 146097);
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  *month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *year = yoe + era * 400 + (*month <= 2);
}

namespace {

// 1 (Monday) .. 7 (Sunday) of a day number (1970-01-01 was a Thursday).
int IsoWeekday(int64_t days) {
  return static_cast<int>((days + 3) - FloorDiv(days + 3, 7) * 7) + 1;
}

int IsoWeeksInYear(int64_t year) {
  // A year has 53 ISO weeks when it starts on a Thursday, or is a leap year starting on a
  // Wednesday — equivalently, when December 28th's ISO week is 53.
  int64_t dec28 = DaysFromCivil(year, 12, 28);
  int64_t jan1 = DaysFromCivil(year, 1, 1);
  int yday = static_cast<int>(dec28 - jan1) + 1;
  return (yday - IsoWeekday(dec28) + 10) / 7;
}

}  // namespace

DateParts TimeZone::Breakdown(int64_t utc_millis) const {
  DateParts parts;
  parts.utc_offset_seconds = OffsetSeconds(utc_millis);
  int64_t local = utc_millis + int64_t{parts.utc_offset_seconds} * 1000;
  int64_t days = FloorDiv(local, kMillisPerDay);
  int64_t ms_of_day = local - days * kMillisPerDay;
  CivilFromDays(days, &parts.year, &parts.month, &parts.day);
  parts.hour = static_cast<int>(ms_of_day / 3600000);
  parts.minute = static_cast<int>(ms_of_day / 60000 % 60);
  parts.second = static_cast<int>(ms_of_day / 1000 % 60);
  parts.millisecond = static_cast<int>(ms_of_day % 1000);
  parts.iso_day_of_week = IsoWeekday(days);
  parts.day_of_week = parts.iso_day_of_week % 7 + 1;
  parts.day_of_year = static_cast<int>(days - DaysFromCivil(parts.year, 1, 1)) + 1;
  const int sunday_based = parts.day_of_week - 1;  // 0 (Sunday) .. 6
  parts.week = (parts.day_of_year - 1 + 7 - sunday_based) / 7;
  int iso_week = (parts.day_of_year - parts.iso_day_of_week + 10) / 7;
  parts.iso_week_year = parts.year;
  if (iso_week < 1) {
    parts.iso_week_year = parts.year - 1;
    iso_week = IsoWeeksInYear(parts.iso_week_year);
  } else if (iso_week > IsoWeeksInYear(parts.year)) {
    parts.iso_week_year = parts.year + 1;
    iso_week = 1;
  }
  parts.iso_week = iso_week;
  return parts;
}

}  // namespace cairn::query
