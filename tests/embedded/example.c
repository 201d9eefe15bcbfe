/* README.md's C example ("Embedding Cairn"), compiled and run by CTest (embedded_example_c). */
#include <bson/bson.h>
#include <stdio.h>

#include "cairn.h"

int main(void) {
  cairn_db* db;
  char* error = NULL;
  if (cairn_open(":memory:", NULL, &db, &error) != CAIRN_OK) {
    fprintf(stderr, "cairn_open: %s\n", error);
    cairn_free(error);
    return 1;
  }

  bson_t* insert =
      BCON_NEW("insert", BCON_UTF8("things"), "documents", "[", "{", "x", BCON_INT32(1), "}", "]");
  uint8_t* reply;
  size_t reply_len;
  cairn_command(db, "test", bson_get_data(insert), insert->len, &reply, &reply_len);
  bson_destroy(insert);
  bson_t doc;
  bson_init_static(&doc, reply, reply_len);
  char* json = bson_as_relaxed_extended_json(&doc, NULL);
  printf("%s\n", json); /* { "n" : 1, "ok" : 1.0 } */
  bson_free(json);
  cairn_free(reply);

  /* The same database for an ordinary driver: */
  char* uri;
  if (cairn_serve(db, "127.0.0.1", 0, &uri, &error) == CAIRN_OK) {
    printf("%s\n", uri); /* mongodb://127.0.0.1:PORT/?directConnection=true */
    cairn_free(uri);
  }
  cairn_close(db);
  return 0;
}
