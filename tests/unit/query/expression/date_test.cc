// Date operators as MongoDB 7.0 answers them: the date parts (with Olson and offset time zones,
// across a DST change, ISO and Sunday-based weeks), $dateToString's formats and defaults, and
// $dateToParts — with null handling and error codes.
#include <gtest/gtest.h>

#include "tests/unit/query/expression/expression_test_util.h"

namespace cairn::query::testing {
namespace {

// d: Sunday 2024-03-10T12:34:56.789Z, the day New York moves to daylight time (07:00Z);
// n: Friday 2021-01-01, which belongs to ISO week 53 of 2020.
#define DOC \
  R"({"d": {"$date": "2024-03-10T12:34:56.789Z"}, "n": {"$date": "2021-01-01T00:00:00Z"}})"

const Case kDateCases[] = {
    // The date parts, in UTC
    {R"({"$year": "$d"})", DOC, R"({"r": 2024})"},
    {R"({"$month": "$d"})", DOC, R"({"r": 3})"},
    {R"({"$dayOfMonth": "$d"})", DOC, R"({"r": 10})"},
    {R"({"$hour": "$d"})", DOC, R"({"r": 12})"},
    {R"({"$minute": "$d"})", DOC, R"({"r": 34})"},
    {R"({"$second": "$d"})", DOC, R"({"r": 56})"},
    {R"({"$millisecond": "$d"})", DOC, R"({"r": 789})"},
    {R"({"$dayOfWeek": "$d"})", DOC, R"({"r": 1})"},
    {R"({"$dayOfYear": "$d"})", DOC, R"({"r": 70})"},
    {R"({"$week": "$d"})", DOC, R"({"r": 10})"},
    {R"({"$isoWeek": "$d"})", DOC, R"({"r": 10})"},
    {R"({"$isoDayOfWeek": "$d"})", DOC, R"({"r": 7})"},
    {R"({"$isoWeekYear": "$d"})", DOC, R"({"r": {"$numberLong": "2024"}})"},
    {R"({"$week": "$n"})", DOC, R"({"r": 0})"},
    {R"({"$isoWeek": "$n"})", DOC, R"({"r": 53})"},
    {R"({"$isoWeekYear": "$n"})", DOC, R"({"r": {"$numberLong": "2020"}})"},
    {R"({"$isoDayOfWeek": "$n"})", DOC, R"({"r": 5})"},
    // argument forms
    {R"({"$year": ["$d"]})", DOC, R"({"r": 2024})"},
    {R"({"$year": {"date": "$d"}})", DOC, R"({"r": 2024})"},
    {R"({"$year": {"$add": ["$d", 0]}})", DOC, R"({"r": 2024})"},
    // time zones: Olson (daylight time already in force at 12:34Z) and offsets
    {R"({"$hour": {"date": "$d", "timezone": "America/New_York"}})", DOC, R"({"r": 8})"},
    {R"({"$hour": {"date": "$n", "timezone": "America/New_York"}})", DOC, R"({"r": 19})"},
    {R"({"$year": {"date": "$n", "timezone": "America/New_York"}})", DOC, R"({"r": 2020})"},
    {R"({"$hour": {"date": "$d", "timezone": "+05:30"}})", DOC, R"({"r": 18})"},
    {R"({"$minute": {"date": "$d", "timezone": "+0530"}})", DOC, R"({"r": 4})"},
    {R"({"$hour": {"date": "$d", "timezone": "-03"}})", DOC, R"({"r": 9})"},
    {R"({"$hour": {"date": "$d", "timezone": null}})", DOC, R"({"r": null})"},
    // other date sources, nulls
    {R"({"$year": {"$timestamp": {"t": 1700000000, "i": 1}}})", "{}", R"({"r": 2023})"},
    {R"({"$year": {"$oid": "65e0a0000000000000000000"}})", "{}", R"({"r": 2024})"},
    {R"({"$year": "$missing"})", "{}", R"({"r": null})"},
    {R"({"$year": null})", "{}", R"({"r": null})"},
    // errors
    {R"({"$year": "abc"})", "{}", nullptr, 16006, "can't convert from BSON type string to Date"},
    {R"({"$year": [1, 2]})", "{}", nullptr, 40536,
     "$year accepts exactly one argument if given an array, but was given 2"},
    {R"({"$year": {"date": "$d", "x": 1}})", DOC, nullptr, 40535,
     "unrecognized option to $year: \"x\""},
    {R"({"$year": {"timezone": "UTC"}})", DOC, nullptr, 40539},
    {R"({"$year": {"date": "$d", "timezone": 5}})", DOC, nullptr, 40517,
     "timezone must evaluate to a string, found int"},
    {R"({"$year": {"date": "$d", "timezone": "Foo/Bar"}})", DOC, nullptr, 40485,
     "unrecognized time zone identifier: \"Foo/Bar\""},
    {R"({"$year": {"date": "$d", "timezone": "+5:30"}})", DOC, nullptr, 40485},

    // $dateToString
    {R"({"$dateToString": {"date": "$d"}})", DOC, R"({"r": "2024-03-10T12:34:56.789Z"})"},
    {R"({"$dateToString": {"date": "$d", "timezone": "America/New_York"}})", DOC,
     R"({"r": "2024-03-10T08:34:56.789"})"},
    {R"({"$dateToString": {"date": "$d", "format": "%Y/%m/%d %H:%M:%S %z", "timezone": "+05:30"}})",
     DOC, R"({"r": "2024/03/10 18:04:56 +0530"})"},
    {R"({"$dateToString": {"date": "$d", "format": "%j %w %u %U %V %G %L %% %b %B"}})", DOC,
     R"({"r": "070 1 7 10 10 2024 789 % Mar March"})"},
    {R"({"$dateToString": {"date": "$d", "format": "%Z", "timezone": "-04:30"}})", DOC,
     R"({"r": "-270"})"},
    {R"({"$dateToString": {"date": null, "onNull": "none"}})", "{}", R"({"r": "none"})"},
    {R"({"$dateToString": {"date": "$missing"}})", "{}", R"({"r": null})"},
    {R"({"$dateToString": {"date": "$d", "format": null}})", DOC, R"({"r": null})"},
    {R"({"$dateToString": {"date": "$d", "format": "%Q"}})", DOC, nullptr, 18536,
     "Invalid format character '%Q' in format string"},
    {R"({"$dateToString": {"date": "$d", "format": "abc%"}})", DOC, nullptr, 18535,
     "Unmatched '%' at end of format string"},
    {R"({"$dateToString": {"date": "$d", "format": 1}})", DOC, nullptr, 18533,
     "$dateToString requires that 'format' be a string, found: int with value 1"},
    {R"({"$dateToString": {"format": "%Y"}})", DOC, nullptr, 18628,
     "Missing 'date' parameter to $dateToString"},
    {R"({"$dateToString": "$d"})", DOC, nullptr, 18629,
     "$dateToString only supports an object as its argument"},
    {R"({"$dateToString": {"date": "$d", "x": 1}})", DOC, nullptr, 18534,
     "Unrecognized argument to $dateToString: x"},

    // $dateToParts
    {R"({"$dateToParts": {"date": "$d"}})", DOC,
     R"({"r": {"year": 2024, "month": 3, "day": 10, "hour": 12, "minute": 34, "second": 56,
               "millisecond": 789}})"},
    {R"({"$dateToParts": {"date": "$n", "iso8601": true}})", DOC,
     R"({"r": {"isoWeekYear": 2020, "isoWeek": 53, "isoDayOfWeek": 5, "hour": 0, "minute": 0,
               "second": 0, "millisecond": 0}})"},
    {R"({"$dateToParts": {"date": null}})", "{}", R"({"r": null})"},
    {R"({"$dateToParts": {"date": "$d", "iso8601": 1}})", DOC, nullptr, 40521,
     "iso8601 must evaluate to a bool, found int"},
    {R"({"$dateToParts": {"timezone": "UTC"}})", DOC, nullptr, 40522,
     "Missing 'date' parameter to $dateToParts"},
    {R"({"$dateToParts": 1})", DOC, nullptr, 40524,
     "$dateToParts only supports an object as its argument"},
};

CAIRN_EXPRESSION_CASES(Date, kDateCases);

}  // namespace
}  // namespace cairn::query::testing
