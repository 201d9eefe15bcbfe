// cairn: the data tools, a client of any MongoDB-compatible server: dump/restore in
// mongodump's formats, export/import in mongoexport's. Dispatches to the subcommand.
#include <mongoc/mongoc.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "tools/cairn/commands.h"

namespace cairn::tools {

int Fail(const char* command, const std::string& reason) {
  std::fprintf(stderr, "cairn %s: %s\n", command, reason.c_str());
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
