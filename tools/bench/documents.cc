// The benchmark's documents: one shape (toolchain.md "Measured limits"), built with libbson from a
// seeded SplitMix64 per document, so every run and machine writes the same bytes.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tools/bench/bench.h"

namespace cairn::bench {

namespace {

constexpr const char* kFirst[] = {"Alice", "Bruno", "Chiara", "Dmitri", "Elena", "Farid",
                                  "Grace", "Hiro",  "Ines",   "Jonas",  "Kemal", "Lucia",
                                  "Marta", "Nikos", "Olga",   "Pavel"};
constexpr const char* kLast[] = {
    "Anderson", "Bianchi", "Castillo", "Dubois",    "Eriksen", "Fischer",  "Garcia", "Hoffmann",
    "Ivanova",  "Jensen",  "Kowalski", "Lindqvist", "Moreau",  "Nakamura", "Okafor", "Petrova"};
constexpr const char* kCities[] = {"Lisbon",  "Berlin", "Osaka",  "Toronto",
                                   "Nairobi", "Lyon",   "Krakow", "Bergen"};
constexpr const char* kStreets[] = {"Maple Street",  "Harbour Road",  "Station Lane", "Mill Avenue",
                                    "Church Street", "Park Crescent", "River Walk",   "Oak Drive"};

template <size_t N>
const char* Pick(const char* const (&pool)[N], SplitMix64& rng) {
  return pool[rng.Below(N)];
}

}  // namespace

DocumentSet::DocumentSet(int64_t count) : docs_(new bson_t*[static_cast<size_t>(count)]) {
  char name[64], email[96], street[64], zip[16];
  for (int64_t i = 0; i < count; ++i) {
    SplitMix64 rng(0xCA1A2000ull + static_cast<uint64_t>(i));
    const char* first = Pick(kFirst, rng);
    const char* last = Pick(kLast, rng);
    snprintf(name, sizeof name, "%s %s", first, last);
    snprintf(email, sizeof email, "%s.%s%u@example.com", first, last,
             static_cast<unsigned>(rng.Below(10000)));
    snprintf(street, sizeof street, "%u %s", static_cast<unsigned>(1 + rng.Below(999)),
             Pick(kStreets, rng));
    snprintf(zip, sizeof zip, "%05u", static_cast<unsigned>(rng.Below(100000)));

    bson_t* doc = bson_new();
    BSON_APPEND_INT32(doc, "_id", static_cast<int32_t>(i));
    BSON_APPEND_UTF8(doc, "name", name);
    BSON_APPEND_UTF8(doc, "email", email);
    BSON_APPEND_INT32(doc, "age", static_cast<int32_t>(18 + rng.Below(70)));
    BSON_APPEND_INT32(doc, "score", static_cast<int32_t>(rng.Below(1000)));
    BSON_APPEND_INT64(doc, "ts", 1700000000000ll + static_cast<int64_t>(rng.Below(1u << 30)));
    BSON_APPEND_BOOL(doc, "active", rng.Below(4) != 0);
    BSON_APPEND_DOUBLE(doc, "balance", static_cast<double>(rng.Below(10000000)) / 100.0);
    bson_t address;
    BSON_APPEND_DOCUMENT_BEGIN(doc, "address", &address);
    BSON_APPEND_UTF8(&address, "city", Pick(kCities, rng));
    BSON_APPEND_UTF8(&address, "street", street);
    BSON_APPEND_UTF8(&address, "zip", zip);
    bson_append_document_end(doc, &address);
    total_bytes_ += doc->len;
    docs_[size_++] = doc;
  }
}

std::unique_ptr<DocumentSet> DocumentSet::FromJsonLines(const std::string& command, int64_t count,
                                                        void (*adjust)(bson_t* doc),
                                                        std::string* error) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    *error = "cannot run: " + command;
    return nullptr;
  }
  std::unique_ptr<DocumentSet> set(new DocumentSet());
  set->docs_ = new bson_t*[static_cast<size_t>(count)];
  char* line = nullptr;
  size_t capacity = 0;
  ssize_t length;
  while (set->size_ < static_cast<size_t>(count) &&
         (length = getline(&line, &capacity, pipe)) > 0) {
    bson_error_t err;
    bson_t* doc = bson_new_from_json(reinterpret_cast<const uint8_t*>(line), length, &err);
    if (doc == nullptr) {
      *error = std::string("bad JSON from ") + command + ": " + err.message;
      break;
    }
    if (adjust != nullptr) adjust(doc);
    set->total_bytes_ += doc->len;
    set->docs_[set->size_++] = doc;
  }
  free(line);
  int rc = pclose(pipe);
  if (error->empty() && (rc != 0 || set->size_ != static_cast<size_t>(count))) {
    *error = command + " exited " + std::to_string(rc) + " after " + std::to_string(set->size_) +
             " of " + std::to_string(count) + " documents";
  }
  if (!error->empty()) return nullptr;
  return set;
}

DocumentSet::~DocumentSet() {
  for (size_t i = 0; i < size_; ++i) bson_destroy(docs_[i]);
  delete[] docs_;
}

}  // namespace cairn::bench
