// cairn: the data tools, a client of any MongoDB-compatible server: dump/restore in
// mongodump's formats, export/import in mongoexport's. Dispatches to the subcommand.
#include <mongoc/mongoc.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "tools/cairn/commands.h"

namespace cairn::tools {

int RunSubcommand(const char* command, const std::vector<std::string>& argv,
                  const std::vector<ArgSpec>& specs, const char* usage, size_t max_positional,
                  Status (*body)(const Args&)) {
  std::vector<ArgSpec> all = ConnectionArgSpecs();
  all.insert(all.end(), specs.begin(), specs.end());
  Result<Args> args = Args::Parse(argv, all);
  Status status = args.status();
  if (status.ok() && args->Has("help")) {
    std::cout << usage;
    return 0;
  }
  if (status.ok() && args->positional().size() > max_positional) {
    status =
        Status(ErrorCode::kBadValue, "unexpected argument " + args->positional()[max_positional]);
  }
  if (status.ok()) status = body(*args);
  if (status.ok()) return 0;
  std::fprintf(stderr, "cairn %s: %s\n", command, status.reason().c_str());
  if (!args.ok()) std::fputs(usage, stderr);
  return 1;
}

}  // namespace cairn::tools

namespace {

const char kUsage[] =
    "usage: cairn <command> [options]   (cairn <command> --help for its options)\n"
    "  dump      write collections in mongodump's layout (directory or --archive)\n"
    "  restore   load a mongodump/cairn dump directory or archive\n"
    "  export    write a collection as Extended JSON lines, a JSON array or CSV\n"
    "  import    load Extended JSON, a JSON array, CSV or TSV into a collection\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "--help" || command == "help") {
    std::cout << kUsage;
    return 0;
  }
  using Run = int (*)(const std::vector<std::string>&);
  Run run = command == "dump"      ? cairn::tools::RunDump
            : command == "restore" ? cairn::tools::RunRestore
            : command == "export"  ? cairn::tools::RunExport
            : command == "import"  ? cairn::tools::RunImport
                                   : nullptr;
  if (!run) {
    std::cerr << "cairn: unknown command '" << command << "'\n" << kUsage;
    return 2;
  }
  mongoc_init();
  int status = run(args);
  mongoc_cleanup();
  return status;
}
