// CSV and TSV as mongoexport writes and mongoimport reads them: RFC 4180 quoting for CSV (a
// field with a comma, quote or line break is quoted, quotes doubled; quoted fields may span
// lines), plain tab-separated fields for TSV. Values: strings as they are, numbers as JSON
// writes them, ObjectId as ObjectId(<hex>), dates as ISO-8601 UTC, documents and arrays as
// relaxed Extended JSON, a missing field as an empty one (mongoexport's CSV conventions).
#pragma once

#include <bson/bson.h>

#include <string>
#include <vector>

#include "common/status.h"
#include "tools/cairn/line_reader.h"

namespace cairn::tools {

// The CSV text of one value.
std::string CsvValue(const bson_iter_t* value);

// One CSV record (quoted as needed) from its fields, without the line break.
std::string CsvRecord(const std::vector<std::string>& fields, char separator);

// Reads the next record into *fields; *line is the line it starts on. False at the end.
Result<bool> ReadCsvRecord(LineReader* in, char separator, std::vector<std::string>* fields,
                           int64_t* line);

// Appends a CSV field to `doc` under its (dotted: nested documents) name, typed as mongoimport
// does without --columnsHaveTypes: an integer that fits in int32 or int64 becomes one, another
// number a double, anything else a string.
void AppendCsvFields(bson_t* doc, const std::vector<std::string>& names,
                     const std::vector<std::string>& values, bool ignore_blanks);

}  // namespace cairn::tools
