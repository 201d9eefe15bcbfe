// Command-line options in mongo-tools' spelling: --name value, --name=value, -x value, and
// flags. Each subcommand declares its options; anything else is refused by name, so an option
// mongodump has and cairn does not fails loudly instead of being ignored.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace cairn::tools {

enum class ArgKind {
  kFlag,           // --drop
  kValue,          // --db shop, --db=shop
  kOptionalValue,  // --archive (no value) or --archive=FILE (only the = form takes a value)
};

struct ArgSpec {
  std::string name;        // long name without dashes
  std::string short_name;  // one letter without the dash, or ""
  ArgKind kind;
};

class Args {
 public:
  static Result<Args> Parse(const std::vector<std::string>& argv,
                            const std::vector<ArgSpec>& specs);

  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  // The last value given for `name` (mongo-tools: the last one wins), or `fallback`.
  std::string Get(const std::string& name, const std::string& fallback = "") const;
  // Every value given for `name`, in order (--excludeCollection a --excludeCollection b).
  std::vector<std::string> GetAll(const std::string& name) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
};

// The options every subcommand shares: where the server is.
std::vector<ArgSpec> ConnectionArgSpecs();

// Parses a non-negative integer option; `name` is used in the error.
Result<long long> ParseCount(const std::string& text, const std::string& name);

// "a, b,c" -> {"a", "b", "c"} (--fields).
std::vector<std::string> SplitList(const std::string& list);

}  // namespace cairn::tools
