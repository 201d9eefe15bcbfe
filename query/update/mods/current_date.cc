// $currentDate: sets the field to the current time, as a date (true, or {$type: "date"}) or a
// timestamp ({$type: "timestamp"}); always a change. MongoDB: current_date_node.cpp. The
// timestamp is (seconds now, a process-wide increment), standing in for the cluster time.
#include <atomic>
#include <chrono>

#include "query/update/update_internal.h"

namespace cairn::query::update_internal {
namespace {

std::atomic<uint32_t> g_timestamp_increment{0};

class CurrentDateModifier final : public Modifier {
 public:
  explicit CurrentDateModifier(bool is_date) : is_date_(is_date) {}

  bool AllowCreation() const override { return true; }

  Result<bool> UpdateExisting(ApplyContext& ctx, ElementRef element,
                              std::string_view path) const override {
    element.node() = Now(ctx);
    return true;
  }

  Result<Node> NewValue(ApplyContext& ctx) const override { return Now(ctx); }

 private:
  Node Now(ApplyContext& ctx) const {
    auto now = std::chrono::system_clock::now().time_since_epoch();
    if (is_date_) {
      int64_t ms = std::chrono::duration_cast<std::chrono::milliseconds>(now).count();
      return ctx.MakeValue(
          [&](bson_t* doc, const char* key) { bson_append_date_time(doc, key, -1, ms); });
    }
    uint32_t seconds =
        static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::seconds>(now).count());
    uint32_t increment = ++g_timestamp_increment;
    return ctx.MakeValue([&](bson_t* doc, const char* key) {
      bson_append_timestamp(doc, key, -1, seconds, increment);
    });
  }

  bool is_date_;
};

}  // namespace

Result<std::unique_ptr<Modifier>> MakeCurrentDate(const ModifierArg& arg) {
  const bson_iter_t& value = arg.value;
  bool is_date = true;
  if (BSON_ITER_HOLDS_BOOL(&value)) {
    is_date = true;
  } else if (BSON_ITER_HOLDS_DOCUMENT(&value)) {
    bool found_valid_type = false;
    bson_iter_t option;
    bson_iter_recurse(&value, &option);
    while (bson_iter_next(&option)) {
      if (IterKey(&option) != "$type") {
        return Status(ErrorCode::kBadValue,
                      "Unrecognized $currentDate option: " + std::string(IterKey(&option)));
      }
      if (BSON_ITER_HOLDS_UTF8(&option)) {
        if (IterUtf8(&option) == "date") {
          is_date = true;
          found_valid_type = true;
        } else if (IterUtf8(&option) == "timestamp") {
          is_date = false;
          found_valid_type = true;
        }
      }
    }
    if (!found_valid_type) {
      return Status(ErrorCode::kBadValue,
                    "The '$type' string field is required to be 'date' or 'timestamp': "
                    "{$currentDate: {field : {$type: 'date'}}}");
    }
  } else {
    return Status(ErrorCode::kBadValue,
                  std::string(BsonTypeName(bson_iter_type(&value))) +
                      " is not valid type for $currentDate. Please use a boolean ('true') or a "
                      "$type expression ({$type: 'timestamp/date'}).");
  }
  return std::unique_ptr<Modifier>(new CurrentDateModifier(is_date));
}

}  // namespace cairn::query::update_internal
