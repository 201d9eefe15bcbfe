// $unwind: one output document per element of the array at `path`, the element in the array's
// place (MongoDB 3.2+ semantics): a non-array value passes as one document; missing, null and []
// produce nothing unless preserveNullAndEmptyArrays (then the document passes, [] removed from
// it); includeArrayIndex adds the element's index (NumberLong), null when there is no array.
// The path walks embedded documents only. Parse errors are MongoDB's (15981, 28808-28812, 28818,
// 28822). Streams: each input document is unwound element by element from its own buffer.
#include "query/pipeline/stages/unwind.h"

#include "common/bson_element.h"
#include "query/expression/expression.h"
#include "query/pipeline/path_write.h"
#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

class UnwindStage final : public Stage {
 public:
  explicit UnwindStage(UnwindSpec spec) : spec_(std::move(spec)) {}

  std::string_view name() const override { return "$unwind"; }
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;
  const UnwindSpec& spec() const { return spec_; }

 private:
  UnwindSpec spec_;
};

class UnwindExecutor final : public ChildSource {
 public:
  UnwindExecutor(const UnwindSpec& spec, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), spec_(spec) {}

  bool Next() override {
    while (true) {
      if (in_array_) {
        // The cursor into the array is kept as a BsonElement (a bson_iter_t member would make
        // this heap object over-aligned); it turns back into an iterator on the stack.
        bson_iter_t element;
        bool more = index_ == 0 ? array_.Init(&element) && bson_iter_next(&element)
                                : (element = position_.iter(), bson_iter_next(&element));
        if (more) {
          position_ = BsonElement(&element);
          bson_reinit(out_.get());
          WriteUnwound(spec_, child_->document(), &element, index_++, false, out_.get());
          return true;
        }
        in_array_ = false;
      }
      if (!child_->Next()) return false;
      BsonView doc = child_->document();
      bson_iter_t value;
      bool found = FindPathNoArrays(doc, spec_.path_parts, &value);
      if (found && BSON_ITER_HOLDS_ARRAY(&value)) {
        array_ = IterDocument(&value);
        in_array_ = true;
        index_ = 0;
        if (IterDocument(&value).empty() && spec_.preserve_null_and_empty) {
          in_array_ = false;
          bson_reinit(out_.get());
          WriteUnwound(spec_, doc, nullptr, std::nullopt, /*remove_path=*/true, out_.get());
          return true;
        }
        continue;
      }
      bool nullish = !found || BSON_ITER_HOLDS_NULL(&value) || BSON_ITER_HOLDS_UNDEFINED(&value);
      if (nullish && !spec_.preserve_null_and_empty) continue;
      bson_reinit(out_.get());
      if (nullish) {
        WriteUnwound(spec_, doc, nullptr, std::nullopt, false, out_.get());
      } else {
        WriteUnwound(spec_, doc, &value, std::nullopt, false, out_.get());  // a scalar passes
      }
      return true;
    }
  }
  BsonView document() const override { return out_.view(); }
  // Each output keeps its input document's its metadata.
  std::optional<double> text_score() const override { return child_->text_score(); }

 private:
  const UnwindSpec& spec_;
  BsonView array_;        // the array being unwound, inside the child's current document
  BsonElement position_;  // its element last returned
  bool in_array_ = false;
  int64_t index_ = 0;
  BsonDoc out_;
};

std::unique_ptr<DocumentSource> UnwindStage::Bind(std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<UnwindExecutor>(spec_, std::move(child));
}

std::string TypeNameOf(const bson_iter_t* it) {
  return std::string(BsonTypeName(bson_iter_type(it)));
}

}  // namespace

const UnwindSpec* AsUnwind(const Stage& stage) {
  auto* unwind = dynamic_cast<const UnwindStage*>(&stage);
  return unwind != nullptr ? &unwind->spec() : nullptr;
}

void WriteUnwound(const UnwindSpec& spec, BsonView doc, const bson_iter_t* element,
                  std::optional<int64_t> index, bool remove_path, bson_t* out) {
  BsonDoc staged;  // only when both the path and the index are written
  auto write_index = [&](BsonView from, bson_t* to) {
    WriteWithPathSet(from, spec.index_parts, to, [&](bson_t* parent, std::string_view key) {
      if (index.has_value()) {
        bson_append_int64(parent, key.data(), static_cast<int>(key.size()), *index);
      } else {
        bson_append_null(parent, key.data(), static_cast<int>(key.size()));
      }
    });
  };
  bson_t* first = spec.index_parts.empty() ? out : staged.get();
  if (element != nullptr) {
    WriteWithPathSet(doc, spec.path_parts, first, [&](bson_t* parent, std::string_view key) {
      AppendIter(parent, key, element);
    });
  } else if (remove_path) {
    // [] preserved: the field is removed (MongoDB sets it to missing).
    WriteWithPathRemoved(doc, spec.path_parts, first);
  } else {
    bson_t whole = doc.AsBson();
    bson_concat(first, &whole);
  }
  if (!spec.index_parts.empty()) write_index(staged.view(), out);
}

Result<StagePtr> ParseUnwind(const bson_iter_t* spec, const PipelineOptions& options) {
  UnwindSpec unwind;
  std::string path;
  bool has_path = false;
  std::string index_path;
  if (BSON_ITER_HOLDS_UTF8(spec)) {
    path = std::string(IterUtf8(spec));
    has_path = true;
  } else if (BSON_ITER_HOLDS_DOCUMENT(spec)) {
    bson_iter_t it;
    IterDocument(spec).Init(&it);
    while (bson_iter_next(&it)) {
      std::string_view key = IterKey(&it);
      if (key == "path") {
        if (!BSON_ITER_HOLDS_UTF8(&it)) {
          return Status(ErrorCode::kLocation28808,
                        "expected a string as the path for $unwind stage, got " + TypeNameOf(&it));
        }
        path = std::string(IterUtf8(&it));
        has_path = true;
      } else if (key == "preserveNullAndEmptyArrays") {
        if (!BSON_ITER_HOLDS_BOOL(&it)) {
          return Status(ErrorCode::kLocation28809,
                        "expected a boolean for the preserveNullAndEmptyArrays option to $unwind "
                        "stage, got " +
                            TypeNameOf(&it));
        }
        unwind.preserve_null_and_empty = bson_iter_bool(&it);
      } else if (key == "includeArrayIndex") {
        if (!BSON_ITER_HOLDS_UTF8(&it) || IterUtf8(&it).empty()) {
          return Status(ErrorCode::kLocation28810,
                        "expected a non-empty string for the includeArrayIndex  option to "
                        "$unwind stage, got " +
                            TypeNameOf(&it));
        }
        index_path = std::string(IterUtf8(&it));
        if (index_path[0] == '$') {
          return Status(ErrorCode::kLocation28822,
                        "includeArrayIndex option to $unwind stage should not be prefixed with a "
                        "'$': " +
                            index_path);
        }
      } else {
        return Status(ErrorCode::kLocation28811,
                      "unrecognized option to $unwind stage: " + std::string(key));
      }
    }
  } else {
    return Status(ErrorCode::kLocation15981,
                  "expected either a string or an object as specification for $unwind stage, "
                  "got " +
                      TypeNameOf(spec));
  }
  if (!has_path) return Status(ErrorCode::kLocation28812, "no path specified to $unwind stage");
  if (path.empty() || path[0] != '$') {
    return Status(ErrorCode::kLocation28818,
                  "path option to $unwind stage should be prefixed with a '$': " + path);
  }
  unwind.path = path.substr(1);
  CAIRN_ASSIGN_OR_RETURN(unwind.path_parts, SplitFieldPath(unwind.path));
  if (!index_path.empty()) {
    CAIRN_ASSIGN_OR_RETURN(unwind.index_parts, SplitFieldPath(index_path));
  }
  return StagePtr(std::make_shared<UnwindStage>(std::move(unwind)));
}

}  // namespace cairn::query::stages
