// Option parsing shared by the subcommands.
#include "tools/cairn/args.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace cairn::tools {

namespace {

const ArgSpec* FindSpec(const std::vector<ArgSpec>& specs, const std::string& name, bool is_short) {
  for (const ArgSpec& spec : specs) {
    if ((is_short ? spec.short_name : spec.name) == name && !name.empty()) return &spec;
  }
  return nullptr;
}

}  // namespace

Result<Args> Args::Parse(const std::vector<std::string>& argv, const std::vector<ArgSpec>& specs) {
  Args args;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg.size() < 2 || arg[0] != '-' || arg == "--") {
      args.positional_.push_back(arg);
      continue;
    }
    bool is_long = arg[1] == '-';
    std::string name = arg.substr(is_long ? 2 : 1);
    std::optional<std::string> inline_value;
    size_t eq = name.find('=');
    if (eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const ArgSpec* spec = FindSpec(specs, name, !is_long);
    if (!spec) {
      return Status(ErrorCode::kBadValue,
                    "unknown option " + arg + " (cairn <command> --help lists the options)");
    }
    switch (spec->kind) {
      case ArgKind::kFlag:
        if (inline_value && *inline_value != "true") {
          return Status(ErrorCode::kBadValue, "--" + spec->name + " takes no value");
        }
        args.values_[spec->name].push_back("true");
        break;
      case ArgKind::kOptionalValue:
        args.values_[spec->name].push_back(inline_value.value_or(""));
        break;
      case ArgKind::kValue:
        if (inline_value) {
          args.values_[spec->name].push_back(*inline_value);
        } else if (i + 1 < argv.size()) {
          args.values_[spec->name].push_back(argv[++i]);
        } else {
          return Status(ErrorCode::kBadValue, "--" + spec->name + " needs a value");
        }
        break;
    }
  }
  return args;
}

std::string Args::Get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second.back();
}

std::vector<std::string> Args::GetAll(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::vector<ArgSpec> ConnectionArgSpecs() {
  return {{"uri", "", ArgKind::kValue},
          {"host", "h", ArgKind::kValue},
          {"port", "", ArgKind::kValue},
          {"help", "", ArgKind::kFlag},
          {"quiet", "", ArgKind::kFlag}};
}

Result<long long> ParseCount(const std::string& text, const std::string& name) {
  errno = 0;
  char* end = nullptr;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || errno != 0 || *end != '\0' || value < 0) {
    return Status(ErrorCode::kBadValue,
                  "--" + name + " needs a non-negative integer, not '" + text + "'");
  }
  return value;
}

std::vector<std::string> SplitList(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
    if (b != std::string::npos) items.push_back(item.substr(b, e - b + 1));
  }
  return items;
}

}  // namespace cairn::tools
