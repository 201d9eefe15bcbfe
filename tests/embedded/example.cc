// README.md's C++ example ("Embedding Cairn"), compiled and run by CTest (embedded_example_cpp).
#include <bson/bson.h>

#include <iostream>

#include "cairn.hpp"

int main() {
  std::string error;
  cairn::Database db = cairn::Database::Open(":memory:", "", &error);
  if (!db) {
    std::cerr << error << "\n";
    return 1;
  }
  bson_t* ping = BCON_NEW("ping", BCON_INT32(1));
  cairn::Reply reply = db.Command("admin", bson_get_data(ping), ping->len);
  bson_destroy(ping);
  bson_t doc;
  bson_init_static(&doc, reply.data(), reply.size());
  char* json = bson_as_relaxed_extended_json(&doc, nullptr);
  std::cout << json << "\n";  // { "ok" : 1.0 }
  bson_free(json);
  std::cout << db.Serve("127.0.0.1", 0) << "\n";  // mongodb://127.0.0.1:PORT/?...
}  // db closes here
