// Calendar arithmetic and date construction as MongoDB 7.0 answers them: $dateAdd,
// $dateSubtract, $dateDiff, $dateTrunc, $dateFromParts and $dateFromString — rows taken from
// the examples of MongoDB's operator pages, plus month-end clamping, DST, week starts, carries,
// nulls and error codes.
#include <gtest/gtest.h>

#include "tests/unit/query/expression/expression_test_util.h"

namespace cairn::query::testing {
namespace {

class DateArith : public ::testing::TestWithParam<Case> {};
TEST_P(DateArith, ShouldAnswerAsMongoDB) { CheckCase(GetParam()); }

#define D(iso) "{\"$date\": \"" iso "\"}"

const Case kDateArithCases[] = {
    // $dateAdd (docs: shipping dates; adding a month keeps the day, clamped to the month end)
    {R"({"$dateAdd": {"startDate": )" D("2020-10-31T12:10:05Z") R"(, "unit": "day", "amount": 3}})",
     "{}", R"({"r": )" D("2020-11-03T12:10:05Z") "}"},
    {R"({"$dateAdd": {"startDate": )" D(
         "2020-10-31T12:10:05Z") R"(, "unit": "month", "amount": 1}})",
     "{}", R"({"r": )" D("2020-11-30T12:10:05Z") "}"},
    {R"({"$dateAdd": {"startDate": )" D(
         "2020-01-31T00:00:00Z") R"(, "unit": "month", "amount": 1}})",
     "{}", R"({"r": )" D("2020-02-29T00:00:00Z") "}"},
    {R"({"$dateAdd": {"startDate": )" D(
         "2020-02-29T00:00:00Z") R"(, "unit": "year", "amount": 1}})",
     "{}", R"({"r": )" D("2021-02-28T00:00:00Z") "}"},
    {R"({"$dateAdd": {"startDate": )" D(
         "2020-11-30T00:00:00Z") R"(, "unit": "quarter", "amount": 1}})",
     "{}", R"({"r": )" D("2021-02-28T00:00:00Z") "}"},
    {R"({"$dateAdd": {"startDate": )" D(
         "2021-01-15T10:00:00.500Z") R"(, "unit": "month", "amount": -13}})",
     "{}", R"({"r": )" D("2019-12-15T10:00:00.500Z") "}"},
    {R"({"$dateAdd": {"startDate": )" D(
         "2021-01-01T00:00:00Z") R"(, "unit": "week", "amount": 2}})",
     "{}", R"({"r": )" D("2021-01-15T00:00:00Z") "}"},
    {R"({"$dateAdd": {"startDate": )" D(
         "2021-01-01T00:00:00Z") R"(, "unit": "millisecond", "amount": 1500}})",
     "{}", R"({"r": )" D("2021-01-01T00:00:01.500Z") "}"},
    {R"({"$dateAdd": {"startDate": )" D(
         "2021-01-01T00:00:00Z") R"(, "unit": "hour", "amount": 1.0}})",
     "{}", R"({"r": )" D("2021-01-01T01:00:00Z") "}"},
    // across the DST change (docs: days keep the local time, hours do not)
    {R"({"$dateAdd": {"startDate": )" D(
         "2021-03-13T12:00:00Z") R"(, "unit": "day", "amount": 1, "timezone": "America/New_York"}})",
     "{}", R"({"r": )" D("2021-03-14T11:00:00Z") "}"},
    {R"({"$dateAdd": {"startDate": )" D(
         "2021-03-13T12:00:00Z") R"(, "unit": "hour", "amount": 24, "timezone": "America/New_York"}})",
     "{}", R"({"r": )" D("2021-03-14T12:00:00Z") "}"},
    {R"({"$dateAdd": {"startDate": )" D(
         "2020-11-01T05:50:02Z") R"(, "unit": "hour", "amount": 1, "timezone": "America/New_York"}})",
     "{}", R"({"r": )" D("2020-11-01T06:50:02Z") "}"},
    {R"({"$dateSubtract": {"startDate": )" D(
         "2021-03-31T00:00:00Z") R"(, "unit": "month", "amount": 1}})",
     "{}", R"({"r": )" D("2021-02-28T00:00:00Z") "}"},
    {R"({"$dateSubtract": {"startDate": )" D(
         "2021-01-20T08:00:00Z") R"(, "unit": "hour", "amount": 3}})",
     "{}", R"({"r": )" D("2021-01-20T05:00:00Z") "}"},
    {R"({"$dateAdd": {"startDate": null, "unit": "day", "amount": 1}})", "{}", R"({"r": null})"},
    {R"({"$dateAdd": {"startDate": )" D(
         "2021-01-01T00:00:00Z") R"(, "unit": "day", "amount": "$x"}})",
     "{}", R"({"r": null})"},
    {R"({"$dateAdd": {"startDate": "x", "unit": "day", "amount": 1}})", "{}", nullptr, 5166403,
     "$dateAdd requires startDate to be convertible to a date"},
    {R"({"$dateAdd": {"startDate": )" D(
         "2021-01-01T00:00:00Z") R"(, "unit": "day", "amount": 1.5}})",
     "{}", nullptr, 5166405, "$dateAdd expects integer amount of time units"},
    {R"({"$dateAdd": {"startDate": )" D(
         "2021-01-01T00:00:00Z") R"(, "unit": "days", "amount": 1}})",
     "{}", nullptr, 9,
     "$dateAdd parameter 'unit' value parsing failed :: caused by :: unknown time unit value: "
     "days"},
    {R"({"$dateAdd": {"startDate": )" D("2021-01-01T00:00:00Z") R"(, "unit": 1, "amount": 1}})",
     "{}", nullptr, 5439013, "$dateAdd requires 'unit' to be a string, but got int"},
    {R"({"$dateAdd": 1})", "{}", nullptr, 5166400, "$dateAdd expects an object as its argument"},
    {R"({"$dateAdd": {"startDate": 1, "unit": "day"}})", "{}", nullptr, 5166402,
     "$dateAdd requires startDate, unit, and amount to be present"},
    {R"({"$dateSubtract": {"k": 1}})", "{}", nullptr, 5166401,
     "Unrecognized argument to $dateSubtract: k. Expected arguments are startDate, unit, amount, "
     "and optionally timezone."},
    {R"({"$dateSubtract": {"startDate": )" D(
         "2021-01-01T00:00:00Z") R"(, "unit": "day", "amount": {"$numberLong": "-9223372036854775808"}}})",
     "{}", nullptr, 6045000},

    // $dateDiff (docs: days between purchase and delivery; boundaries crossed, not elapsed)
    {R"({"$dateDiff": {"startDate": )" D("2020-12-31T23:59:59Z") R"(, "endDate": )" D(
         "2021-01-01T00:00:01Z") R"(, "unit": "year"}})",
     "{}", R"({"r": {"$numberLong": "1"}})"},
    {R"({"$dateDiff": {"startDate": )" D("2020-01-01T00:00:00Z") R"(, "endDate": )" D(
         "2020-12-31T23:59:59Z") R"(, "unit": "year"}})",
     "{}", R"({"r": {"$numberLong": "0"}})"},
    {R"({"$dateDiff": {"startDate": )" D("2020-09-01T00:00:00Z") R"(, "endDate": )" D(
         "2021-01-31T00:00:00Z") R"(, "unit": "month"}})",
     "{}", R"({"r": {"$numberLong": "4"}})"},
    {R"({"$dateDiff": {"startDate": )" D("2020-03-31T00:00:00Z") R"(, "endDate": )" D(
         "2020-04-01T00:00:00Z") R"(, "unit": "quarter"}})",
     "{}", R"({"r": {"$numberLong": "1"}})"},
    {R"({"$dateDiff": {"startDate": )" D("2021-01-01T07:00:00Z") R"(, "endDate": )" D(
         "2021-01-02T06:00:00Z") R"(, "unit": "day"}})",
     "{}", R"({"r": {"$numberLong": "1"}})"},
    {R"({"$dateDiff": {"startDate": )" D("2021-01-05T00:00:00Z") R"(, "endDate": )" D(
         "2020-12-30T00:00:00Z") R"(, "unit": "day"}})",
     "{}", R"({"r": {"$numberLong": "-6"}})"},
    // docs: weeks with startOfWeek (2021-02-02 Tue .. 2021-02-08 Mon)
    {R"({"$dateDiff": {"startDate": )" D("2021-02-02T00:00:00Z") R"(, "endDate": )" D(
         "2021-02-08T00:00:00Z") R"(, "unit": "week"}})",
     "{}", R"({"r": {"$numberLong": "1"}})"},
    {R"({"$dateDiff": {"startDate": )" D("2021-02-02T00:00:00Z") R"(, "endDate": )" D(
         "2021-02-08T00:00:00Z") R"(, "unit": "week", "startOfWeek": "MONDAY"}})",
     "{}", R"({"r": {"$numberLong": "1"}})"},
    {R"({"$dateDiff": {"startDate": )" D("2021-02-02T00:00:00Z") R"(, "endDate": )" D(
         "2021-02-08T00:00:00Z") R"(, "unit": "week", "startOfWeek": "fri"}})",
     "{}", R"({"r": {"$numberLong": "1"}})"},
    {R"({"$dateDiff": {"startDate": )" D("2021-02-03T00:00:00Z") R"(, "endDate": )" D(
         "2021-02-04T00:00:00Z") R"(, "unit": "week", "startOfWeek": "thursday"}})",
     "{}", R"({"r": {"$numberLong": "1"}})"},
    {R"({"$dateDiff": {"startDate": )" D("2021-01-01T00:00:00Z") R"(, "endDate": )" D(
         "2021-01-01T01:30:00.250Z") R"(, "unit": "minute"}})",
     "{}", R"({"r": {"$numberLong": "90"}})"},
    {R"({"$dateDiff": {"startDate": )" D("2021-01-01T00:00:00Z") R"(, "endDate": )" D(
         "2021-01-01T01:30:00.250Z") R"(, "unit": "millisecond"}})",
     "{}", R"({"r": {"$numberLong": "5400250"}})"},
    // across a DST change: hours count elapsed time, days count local dates
    {R"({"$dateDiff": {"startDate": )" D("2021-03-14T05:00:00Z") R"(, "endDate": )" D(
         "2021-03-15T04:00:00Z") R"(, "unit": "hour", "timezone": "America/New_York"}})",
     "{}", R"({"r": {"$numberLong": "23"}})"},
    {R"({"$dateDiff": {"startDate": )" D("2021-03-14T05:00:00Z") R"(, "endDate": )" D(
         "2021-03-15T04:00:00Z") R"(, "unit": "day", "timezone": "America/New_York"}})",
     "{}", R"({"r": {"$numberLong": "1"}})"},
    {R"({"$dateDiff": {"startDate": null, "endDate": 1, "unit": "day"}})", "{}", R"({"r": null})"},
    {R"({"$dateDiff": {"startDate": )" D("2021-01-01T00:00:00Z") R"(, "endDate": )" D(
         "2021-01-01T00:00:00Z") R"(, "unit": "week", "startOfWeek": null}})",
     "{}", R"({"r": null})"},
    {R"({"$dateDiff": {"startDate": "a", "endDate": )" D(
         "2021-01-01T00:00:00Z") R"(, "unit": "day"}})",
     "{}", nullptr, 5166307, "$dateDiff requires 'startDate' to be a date, but got string"},
    {R"({"$dateDiff": {"startDate": )" D("2021-01-01T00:00:00Z") R"(, "endDate": )" D(
         "2021-01-01T00:00:00Z") R"(, "unit": "week", "startOfWeek": "someday"}})",
     "{}", nullptr, 5439016,
     "$dateDiff parameter 'startOfWeek' value cannot be recognized as a day of a week: someday"},
    {R"({"$dateDiff": {"startDate": )" D("2021-01-01T00:00:00Z") R"(, "endDate": )" D(
         "2021-01-01T00:00:00Z") R"(, "unit": "day", "timezone": "Mars/Base"}})",
     "{}", nullptr, 40485,
     "$dateDiff parameter 'timezone' value parsing failed :: caused by :: unrecognized time zone "
     "identifier: \"Mars/Base\""},
    {R"({"$dateDiff": {"startDate": 1, "unit": "day"}})", "{}", nullptr, 5166304,
     "Missing 'endDate' parameter to $dateDiff"},
    {R"({"$dateDiff": {"startDate": 1, "endDate": 1, "units": "day"}})", "{}", nullptr, 5166302,
     "Unrecognized argument to $dateDiff: units"},
    {R"({"$dateDiff": "x"})", "{}", nullptr, 5166301},

    // $dateTrunc (docs: sales bins)
    {R"({"$dateTrunc": {"date": )" D("2021-03-20T11:30:05Z") R"(, "unit": "week"}})", "{}",
     R"({"r": )" D("2021-03-14T00:00:00Z") "}"},
    {R"({"$dateTrunc": {"date": )" D(
         "2021-03-20T11:30:05Z") R"(, "unit": "week", "startOfWeek": "Monday"}})",
     "{}", R"({"r": )" D("2021-03-15T00:00:00Z") "}"},
    {R"({"$dateTrunc": {"date": )" D("2020-05-18T14:10:30Z") R"(, "unit": "month", "binSize": 6}})",
     "{}", R"({"r": )" D("2020-01-01T00:00:00Z") "}"},
    {R"({"$dateTrunc": {"date": )" D("2021-01-02T21:00:00Z") R"(, "unit": "hour", "binSize": 6}})",
     "{}", R"({"r": )" D("2021-01-02T18:00:00Z") "}"},
    {R"({"$dateTrunc": {"date": )" D("2021-03-20T11:30:05.123Z") R"(, "unit": "second"}})", "{}",
     R"({"r": )" D("2021-03-20T11:30:05Z") "}"},
    {R"({"$dateTrunc": {"date": )" D("2021-08-20T11:30:05Z") R"(, "unit": "quarter"}})", "{}",
     R"({"r": )" D("2021-07-01T00:00:00Z") "}"},
    {R"({"$dateTrunc": {"date": )" D("2021-08-20T11:30:05Z") R"(, "unit": "year", "binSize": 5}})",
     "{}", R"({"r": )" D("2020-01-01T00:00:00Z") "}"},
    {R"({"$dateTrunc": {"date": )" D("1999-12-31T11:30:05Z") R"(, "unit": "day", "binSize": 2}})",
     "{}", R"({"r": )" D("1999-12-30T00:00:00Z") "}"},
    {R"({"$dateTrunc": {"date": )" D(
         "2021-03-20T03:30:05Z") R"(, "unit": "day", "timezone": "America/New_York"}})",
     "{}", R"({"r": )" D("2021-03-19T04:00:00Z") "}"},
    {R"({"$dateTrunc": {"date": null, "unit": "day"}})", "{}", R"({"r": null})"},
    {R"({"$dateTrunc": {"date": )" D("2021-03-20T03:30:05Z") R"(, "unit": "day", "binSize": 0}})",
     "{}", nullptr, 5439018, "$dateTrunc requires 'binSize' to be greater than 0, but got value 0"},
    {R"({"$dateTrunc": {"date": )" D("2021-03-20T03:30:05Z") R"(, "unit": "day", "binSize": "2"}})",
     "{}", nullptr, 5439017,
     "$dateTrunc requires 'binSize' to be a 64-bit integer, but got value '\"2\"' of type string"},
    {R"({"$dateTrunc": {"date": "x", "unit": "day"}})", "{}", nullptr, 5439012},
    {R"({"$dateTrunc": {"unit": "day"}})", "{}", nullptr, 5439009,
     "Missing 'date' parameter to $dateTrunc"},
    {R"({"$dateTrunc": {"date": 1, "unit": "day", "k": 1}})", "{}", nullptr, 5439008,
     "Unrecognized argument to $dateTrunc: k. Expected arguments are date, unit, and optionally, "
     "binSize, timezone, startOfWeek"},

    // $dateFromParts (docs examples, carries and ISO weeks)
    {R"({"$dateFromParts": {"year": 2017, "month": 2, "day": 8, "hour": 12}})", "{}",
     R"({"r": )" D("2017-02-08T12:00:00Z") "}"},
    {R"({"$dateFromParts": {"isoWeekYear": 2017, "isoWeek": 6, "isoDayOfWeek": 3, "hour": 12}})",
     "{}", R"({"r": )" D("2017-02-08T12:00:00Z") "}"},
    {R"({"$dateFromParts": {"year": 2017, "month": 2, "day": 8, "hour": 12, "timezone": "America/New_York"}})",
     "{}", R"({"r": )" D("2017-02-08T17:00:00Z") "}"},
    {R"({"$dateFromParts": {"year": 2017, "month": 14, "day": 1}})", "{}",
     R"({"r": )" D("2018-02-01T00:00:00Z") "}"},
    {R"({"$dateFromParts": {"year": 2017, "month": 0, "day": 0}})", "{}",
     R"({"r": )" D("2016-11-30T00:00:00Z") "}"},
    {R"({"$dateFromParts": {"year": 2017, "month": 2, "day": 29}})", "{}",
     R"({"r": )" D("2017-03-01T00:00:00Z") "}"},
    {R"({"$dateFromParts": {"year": 2020, "hour": 25, "minute": -30, "second": 3600, "millisecond": 1500}})",
     "{}", R"({"r": )" D("2020-01-02T01:30:01.500Z") "}"},
    {R"({"$dateFromParts": {"year": 2020, "month": 3.0}})", "{}",
     R"({"r": )" D("2020-03-01T00:00:00Z") "}"},
    {R"({"$dateFromParts": {"year": 2020, "month": "$m"}})", "{}", R"({"r": null})"},
    {R"({"$dateFromParts": {"year": 2020, "timezone": null}})", "{}", R"({"r": null})"},
    {R"({"$dateFromParts": {"year": 2020, "month": 1.5}})", "{}", nullptr, 40515,
     "'month' must evaluate to an integer, found double with value 1.5"},
    {R"({"$dateFromParts": {"year": 2020, "day": 40000}})", "{}", nullptr, 31034,
     "'day' must evaluate to a value in the range [-32768, 32767]; value 40000 is not in range"},
    {R"({"$dateFromParts": {"year": 10000}})", "{}", nullptr, 40523,
     "'year' must evaluate to an integer in the range 1 to 9999, found 10000"},
    {R"({"$dateFromParts": {"isoWeekYear": 0}})", "{}", nullptr, 31095},
    {R"({"$dateFromParts": {"month": 1}})", "{}", nullptr, 40516,
     "$dateFromParts requires either 'year' or 'isoWeekYear' to be present"},
    {R"({"$dateFromParts": {"year": 2020, "isoWeek": 1}})", "{}", nullptr, 40489},
    {R"({"$dateFromParts": {"isoWeekYear": 2020, "month": 1}})", "{}", nullptr, 40525},
    {R"({"$dateFromParts": {"year": 2020, "hours": 1}})", "{}", nullptr, 40518,
     "Unrecognized argument to $dateFromParts: hours"},
    {R"({"$dateFromParts": 2020})", "{}", nullptr, 40519},

    // $dateFromString (docs examples)
    {R"({"$dateFromString": {"dateString": "2017-02-08T12:10:40.787"}})", "{}",
     R"({"r": )" D("2017-02-08T12:10:40.787Z") "}"},
    {R"({"$dateFromString": {"dateString": "2017-02-08T12:10:40.787", "timezone": "America/New_York"}})",
     "{}", R"({"r": )" D("2017-02-08T17:10:40.787Z") "}"},
    {R"({"$dateFromString": {"dateString": "2017-02-08"}})", "{}",
     R"({"r": )" D("2017-02-08T00:00:00Z") "}"},
    {R"({"$dateFromString": {"dateString": "06-15-2018", "format": "%m-%d-%Y"}})", "{}",
     R"({"r": )" D("2018-06-15T00:00:00Z") "}"},
    {R"({"$dateFromString": {"dateString": "15-06-2018", "format": "%d-%m-%Y"}})", "{}",
     R"({"r": )" D("2018-06-15T00:00:00Z") "}"},
    {R"({"$dateFromString": {"dateString": "2017-02-09T03:35:02.055", "timezone": "+0530"}})", "{}",
     R"({"r": )" D("2017-02-08T22:05:02.055Z") "}"},
    {R"({"$dateFromString": {"dateString": "2017-02-08T12:10:40.787Z"}})", "{}",
     R"({"r": )" D("2017-02-08T12:10:40.787Z") "}"},
    {R"({"$dateFromString": {"dateString": "2017-02-08 12:10:40 +02:00"}})", "{}",
     R"({"r": )" D("2017-02-08T10:10:40Z") "}"},
    {R"({"$dateFromString": {"dateString": "2017-02-08T12:10:40 Europe/Paris"}})", "{}",
     R"({"r": )" D("2017-02-08T11:10:40Z") "}"},
    {R"({"$dateFromString": {"dateString": "2018-07-22 14:05", "format": "%Y-%m-%d %H:%M"}})", "{}",
     R"({"r": )" D("2018-07-22T14:05:00Z") "}"},
    {R"({"$dateFromString": {"dateString": "2018-203", "format": "%Y-%j"}})", "{}",
     R"({"r": )" D("2018-07-22T00:00:00Z") "}"},
    {R"({"$dateFromString": {"dateString": "2017-W06-3", "format": "%G-W%V-%u"}})", "{}",
     R"({"r": )" D("2017-02-08T00:00:00Z") "}"},
    {R"({"$dateFromString": {"dateString": "2018-07-22T14:05:00+0100", "format": "%Y-%m-%dT%H:%M:%S%z"}})",
     "{}", R"({"r": )" D("2018-07-22T13:05:00Z") "}"},
    {R"({"$dateFromString": {"dateString": null, "onNull": "none"}})", "{}", R"({"r": "none"})"},
    {R"({"$dateFromString": {"dateString": "$missing"}})", "{}", R"({"r": null})"},
    {R"({"$dateFromString": {"dateString": "20177-02-09T03:35:02.055", "onError": "$d"}})",
     R"({"d": "bad"})", R"({"r": "bad"})"},
    {R"({"$dateFromString": {"dateString": 5, "onError": 0}})", "{}", R"({"r": 0})"},
    {R"({"$dateFromString": {"dateString": 5}})", "{}", nullptr, 241,
     "$dateFromString requires that 'dateString' be a string, found: int with value 5"},
    {R"({"$dateFromString": {"dateString": "2017-13-45"}})", "{}", nullptr, 241},
    {R"({"$dateFromString": {"dateString": "12:10:40"}})", "{}", nullptr, 241,
     "an incomplete date/time string has been found, with elements missing: '12:10:40'"},
    {R"({"$dateFromString": {"dateString": "2017-02-08T12:10:40Z", "timezone": "Europe/Paris"}})",
     "{}", nullptr, 241,
     "you cannot pass in a date/time string with time zone information ('Z') together with a "
     "timezone argument"},
    {R"({"$dateFromString": {"dateString": "2017-02-08T12:10:40+01:00", "timezone": "Europe/Paris"}})",
     "{}", nullptr, 241,
     "you cannot pass in a date/time string with GMT offset together with a timezone argument"},
    {R"({"$dateFromString": {"dateString": "2018-07-22", "format": "%d/%m/%Y"}})", "{}", nullptr,
     241},
    {R"({"$dateFromString": {"dateString": "2018", "format": 5}})", "{}", nullptr, 40684,
     "$dateFromString requires that 'format' be a string, found: int with value 5"},
    {R"({"$dateFromString": {"dateString": "2018", "format": "%Q"}})", "{}", nullptr, 18536},
    {R"({"$dateFromString": {"format": "%Y"}})", "{}", nullptr, 40542,
     "Missing 'dateString' parameter to $dateFromString"},
    {R"({"$dateFromString": {"dateString": "x", "k": 1}})", "{}", nullptr, 40541,
     "Unrecognized argument to $dateFromString: k"},
    {R"({"$dateFromString": "2018"})", "{}", nullptr, 40540,
     "$dateFromString only supports an object as an argument, found: string"},
};

INSTANTIATE_TEST_SUITE_P(Dates, DateArith, ::testing::ValuesIn(kDateArithCases));

}  // namespace
}  // namespace cairn::query::testing
