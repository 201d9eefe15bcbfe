// MongoDB's canonical BSON order: the type order (MinKey < null/undefined < numbers <
// symbol/string < object < array < binData < ObjectId < bool < date < timestamp < regex <
// MaxKey), numbers compared by value across int32/int64/double/decimal128 (NaN below every
// other number and equal to NaN), strings and symbols compared binary or by a collation's
// StringComparator (common/string_comparator.h) when one is given, documents field by field
// (type, name, value), arrays element by element. Used by the matcher, sort, distinct and key
// encoding tests. Stateless and thread-safe.
#pragma once

#include <bson/bson.h>

#include "common/bson_doc.h"
#include "common/string_comparator.h"

namespace cairn {

// Rank of a type in MongoDB's canonical order; types of equal rank compare by value
// (all numbers share one rank; string and symbol share one). Ranks follow MongoDB's
// canonicalizeBSONType: MinKey -1, undefined 0, null 5, numbers 10, string 15, object 20, array 25,
// binData 30, ObjectId 35, bool 40, date 45, timestamp 47, regex 50, dbPointer 55, code 60,
// code with scope 65, MaxKey 127.
int CanonicalTypeRank(bson_type_t type);

// <0, 0, >0 as a sorts before, equal to, after b. Compares the values only, not the keys.
// `strings` (a collation) compares the strings and symbols met, also inside documents and
// arrays, as MongoDB's compareElements does; field names, code and code-with-scope stay binary.
// nullptr: binary ("simple" collation).
int CompareValues(const bson_iter_t* a, const bson_iter_t* b,
                  const StringComparator* strings = nullptr);

// Compares whole documents the way MongoDB's BSONObj::woCompare does (for sort and $min/$max):
// element by element, type rank first, then field name, then value; a shorter prefix sorts first.
// `strings` as for CompareValues.
int CompareDocuments(BsonView a, BsonView b, const StringComparator* strings = nullptr);

// Decimal128 (BID encoding) to int64 when the decimal's value is exactly an int64; non-canonical
// encodings count as zero, as libbson prints them. The comparator and the index key encoding
// both use this one rule, so they order decimals identically.
bool DecimalToInt64Exact(const bson_decimal128_t& dec, int64_t* out);

// Equality in the sense of the query language's $eq on two values (numbers by value,
// documents field-order sensitive, arrays element by element), strings under `strings`.
inline bool ValuesEqual(const bson_iter_t* a, const bson_iter_t* b,
                        const StringComparator* strings = nullptr) {
  return CompareValues(a, b, strings) == 0;
}

}  // namespace cairn
