// corrupt_index: a test-only tool that damages one index entry in a stopped server's data
// directory, so a test can show validate finding (and repair fixing) the damage end to end.
//
//   corrupt_index <dbpath> <db.collection> <index name> delete|repoint
//
// delete removes the index's first entry (validate: a document missing from the index);
// repoint makes that entry name a record no document has (validate: one entry extra and one
// missing). Unique indexes (the _id index included) keep the record in the entry's value, others
// as the key's last 8 bytes (index/README.md "Entries"). Exit status 0 on success, 1 otherwise.
#include <bson/bson.h>

#include <cstdio>
#include <string>
#include <string_view>

#include "common/bson_doc.h"
#include "storage/engine.h"

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "corrupt_index: %s\n", message.c_str());
  return 1;
}

bool IsUnique(const cairn::storage::IndexEntry& index) {
  if (index.name == "_id_") return true;
  bson_iter_t it;
  return index.spec.view().Find("unique", &it) && bson_iter_as_bool(&it);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    return Fail("usage: corrupt_index <dbpath> <db.collection> <index name> delete|repoint");
  }
  const std::string_view action = argv[4];
  if (action != "delete" && action != "repoint")
    return Fail("unknown action " + std::string(action));
  cairn::storage::StorageOptions options;
  options.path = argv[1];
  options.create_if_missing = false;
  auto engine = cairn::storage::Engine::Open(options);
  if (!engine.ok()) return Fail(engine.status().ToString());
  cairn::storage::CollectionHandle collection = (*engine)->catalog().Find(argv[2]);
  if (!collection) return Fail(std::string("no collection ") + argv[2]);
  const cairn::storage::IndexEntry* index = nullptr;
  for (const cairn::storage::IndexEntry& entry : collection->indexes) {
    if (entry.name == argv[3]) index = &entry;
  }
  if (index == nullptr) return Fail(std::string("no index ") + argv[3]);

  auto cursor = (*engine)->ScanIndex(index->prefix, {}, {});
  if (!cursor->Next())
    return Fail(cursor->status().ok() ? "the index is empty" : cursor->status().ToString());
  const std::string key(cursor->key());
  const std::string value(cursor->value());
  cursor.reset();

  cairn::storage::WriteUnit unit = (*engine)->BeginWrite();
  unit.DeleteIndexEntry(index->prefix, key);
  if (action == "repoint") {
    // A RecordId far past any the collection has allocated.
    const std::string bogus = cairn::storage::EncodeRecordId(cairn::storage::RecordId{1} << 60);
    if (IsUnique(*index)) {
      unit.PutIndexEntry(index->prefix, key, bogus);
    } else {
      if (key.size() < 8) return Fail("malformed entry");
      unit.PutIndexEntry(index->prefix, key.substr(0, key.size() - 8) + bogus, value);
    }
  }
  cairn::Status committed = unit.Commit();
  if (!committed.ok()) return Fail(committed.ToString());
  std::printf("corrupt_index: %s one entry of %s.%s\n", std::string(action).c_str(), argv[2],
              argv[3]);
  return 0;
}
