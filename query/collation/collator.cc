// Collator (collator.h): MongoDB's CollatorFactoryICU::makeFromBSON steps over ICU's C++ API —
// field rules (collation_spec.cc), the locale's validity, the ICU attributes set from the fields
// given and read back for the others, the version and the cross-field checks — and the
// comparison itself (compareUTF8, getSortKey).
#include "query/collation/collator.h"

#include <unicode/coll.h>
#include <unicode/locid.h>
#include <unicode/stringpiece.h>
#include <unicode/unistr.h>

#include <string>

#include "query/expression/expression.h"

namespace cairn::query {

struct Collator::Icu {
  std::unique_ptr<icu::Collator> collator;
};

namespace {

// ICU's settings for MongoDB's fields.
UColAttributeValue ToAttribute(bool on) { return on ? UCOL_ON : UCOL_OFF; }

UColAttributeValue ToAttribute(CaseFirst value) {
  switch (value) {
    case CaseFirst::kUpper:
      return UCOL_UPPER_FIRST;
    case CaseFirst::kLower:
      return UCOL_LOWER_FIRST;
    case CaseFirst::kOff:
      return UCOL_OFF;
  }
  return UCOL_OFF;
}

UColAttributeValue StrengthAttribute(int strength) {
  switch (strength) {
    case 1:
      return UCOL_PRIMARY;
    case 2:
      return UCOL_SECONDARY;
    case 3:
      return UCOL_TERTIARY;
    case 4:
      return UCOL_QUATERNARY;
    default:
      return UCOL_IDENTICAL;
  }
}

int StrengthFromAttribute(UColAttributeValue value) {
  switch (value) {
    case UCOL_PRIMARY:
      return 1;
    case UCOL_SECONDARY:
      return 2;
    case UCOL_TERTIARY:
      return 3;
    case UCOL_QUATERNARY:
      return 4;
    default:
      return 5;
  }
}

CaseFirst CaseFirstFromAttribute(UColAttributeValue value) {
  switch (value) {
    case UCOL_UPPER_FIRST:
      return CaseFirst::kUpper;
    case UCOL_LOWER_FIRST:
      return CaseFirst::kLower;
    default:
      return CaseFirst::kOff;
  }
}

// One collation field applied to the ICU collator: set when the document gave it, else read
// back as the locale's default (MongoDB's updateCollationSpecFromICUCollator).
class AttributeSync {
 public:
  AttributeSync(icu::Collator* collator, const std::string& spec_text)
      : collator_(collator), spec_text_(spec_text) {}

  Status Sync(bool given, UColAttribute attribute, std::string_view name, UColAttributeValue wanted,
              UColAttributeValue* actual) {
    UErrorCode status = U_ZERO_ERROR;
    if (given) {
      collator_->setAttribute(attribute, wanted, status);
      if (U_FAILURE(status)) return Failed("set", name, status);
      *actual = wanted;
      return Status::OK();
    }
    *actual = collator_->getAttribute(attribute, status);
    if (U_FAILURE(status)) return Failed("get", name, status);
    return Status::OK();
  }

  Status SyncBool(bool given, UColAttribute attribute, std::string_view name, bool* value) {
    UColAttributeValue actual = UCOL_DEFAULT;  // set by Sync when it succeeds
    CAIRN_RETURN_IF_ERROR(Sync(given, attribute, name, ToAttribute(*value), &actual));
    *value = actual == UCOL_ON;
    return Status::OK();
  }

  Status Failed(std::string_view verb, std::string_view name, UErrorCode status) const {
    return Status(ErrorCode::kOperationFailed,
                  "Failed to " + std::string(verb) + " '" + std::string(name) + "' attribute" +
                      (verb == "get" ? " from icu::Collator: " : ": ") + u_errorName(status) +
                      ". Collation spec: " + spec_text_);
  }

 private:
  icu::Collator* collator_;
  const std::string& spec_text_;
};

Status ApplyFields(const CollationDocument& doc, const std::string& spec_text,
                   icu::Collator* collator, CollationSpec* spec) {
  AttributeSync sync(collator, spec_text);
  CAIRN_RETURN_IF_ERROR(sync.SyncBool(doc.has(CollationDocument::kCaseLevel), UCOL_CASE_LEVEL,
                                      "caseLevel", &spec->case_level));
  UColAttributeValue actual = UCOL_DEFAULT;  // set by Sync when it succeeds
  CAIRN_RETURN_IF_ERROR(sync.Sync(doc.has(CollationDocument::kCaseFirst), UCOL_CASE_FIRST,
                                  "caseFirst", ToAttribute(spec->case_first), &actual));
  spec->case_first = CaseFirstFromAttribute(actual);
  if (doc.has(CollationDocument::kStrength) && (spec->strength < 1 || spec->strength > 5)) {
    // The IDL lets 0 through (its validator is 0..5); the strength enum does not.
    return Status(ErrorCode::kBadValue, "Enumeration value '" + std::to_string(spec->strength) +
                                            "' for field 'collation.strength' is not a valid "
                                            "value.");
  }
  CAIRN_RETURN_IF_ERROR(sync.Sync(doc.has(CollationDocument::kStrength), UCOL_STRENGTH, "strength",
                                  StrengthAttribute(spec->strength), &actual));
  spec->strength = StrengthFromAttribute(actual);
  CAIRN_RETURN_IF_ERROR(sync.SyncBool(doc.has(CollationDocument::kNumericOrdering),
                                      UCOL_NUMERIC_COLLATION, "numericOrdering",
                                      &spec->numeric_ordering));
  CAIRN_RETURN_IF_ERROR(
      sync.Sync(doc.has(CollationDocument::kAlternate), UCOL_ALTERNATE_HANDLING, "alternate",
                spec->alternate == CollationAlternate::kShifted ? UCOL_SHIFTED : UCOL_NON_IGNORABLE,
                &actual));
  spec->alternate =
      actual == UCOL_SHIFTED ? CollationAlternate::kShifted : CollationAlternate::kNonIgnorable;
  if (doc.has(CollationDocument::kMaxVariable)) {
    UErrorCode status = U_ZERO_ERROR;
    collator->setMaxVariable(spec->max_variable == MaxVariable::kSpace
                                 ? UCOL_REORDER_CODE_SPACE
                                 : UCOL_REORDER_CODE_PUNCTUATION,
                             status);
    if (U_FAILURE(status)) return sync.Failed("set", "maxVariable", status);
  } else {
    spec->max_variable = collator->getMaxVariable() == UCOL_REORDER_CODE_SPACE
                             ? MaxVariable::kSpace
                             : MaxVariable::kPunct;
  }
  CAIRN_RETURN_IF_ERROR(sync.SyncBool(doc.has(CollationDocument::kNormalization),
                                      UCOL_NORMALIZATION_MODE, "normalization",
                                      &spec->normalization));
  CAIRN_RETURN_IF_ERROR(sync.SyncBool(doc.has(CollationDocument::kBackwards), UCOL_FRENCH_COLLATION,
                                      "backwards", &spec->backwards));
  if (spec->version != kCollationVersion) {
    return Status(ErrorCode::kIncompatibleCollationVersion,
                  "Requested collation version " + spec->version +
                      " but the only available collator version was " +
                      std::string(kCollationVersion) + ". Requested collation spec: " + spec_text);
  }
  return Status::OK();
}

// MongoDB's validateCollationSpec: options that would have no effect at the strength chosen.
Status CheckCombination(const CollationSpec& spec, const std::string& spec_text) {
  if (spec.backwards && spec.strength == 1) {
    return Status(ErrorCode::kBadValue,
                  "'backwards' is invalid with 'strength' of 1 in: " + spec_text);
  }
  if (spec.case_first != CaseFirst::kOff && !spec.case_level && spec.strength <= 2) {
    return Status(ErrorCode::kBadValue,
                  "'caseFirst' is invalid unless 'caseLevel' is on or 'strength' is greater "
                  "than 2 in: " +
                      spec_text);
  }
  return Status::OK();
}

}  // namespace

Collator::Collator(CollationSpec spec, std::unique_ptr<Icu> icu)
    : spec_(std::move(spec)), icu_(std::move(icu)) {}

Collator::~Collator() = default;

Result<std::shared_ptr<const Collator>> Collator::Make(BsonView spec_doc) {
  CAIRN_ASSIGN_OR_RETURN(CollationDocument doc, ParseCollationDocument(spec_doc));
  CollationSpec spec = std::move(doc.values);
  const std::string spec_text = ToShellString(spec_doc);
  if (spec.locale.find('\0') != std::string::npos) {
    return Status(ErrorCode::kBadValue,
                  "Field 'locale' cannot contain null byte. Collation spec: " + spec_text);
  }
  if (spec.locale == "simple") return std::shared_ptr<const Collator>();

  icu::Locale locale = icu::Locale::createFromName(spec.locale.c_str());
  if (locale.isBogus()) {
    return Status(ErrorCode::kBadValue, "Field 'locale' is not valid in: " + spec_text);
  }
  UErrorCode status = U_ZERO_ERROR;
  auto icu = std::make_unique<Icu>();
  icu->collator.reset(icu::Collator::createInstance(locale, status));
  if (status == U_ILLEGAL_ARGUMENT_ERROR) {
    // ICU refuses ids it cannot parse at all (over-long components); MongoDB's ICU reports them
    // as a locale that does not match.
    return Status(ErrorCode::kBadValue, "Field 'locale' is invalid in: " + spec_text);
  }
  if (U_FAILURE(status) || icu->collator == nullptr) {
    return Status(ErrorCode::kOperationFailed, std::string("Failed to create collator: ") +
                                                   u_errorName(status) +
                                                   ". Collation spec: " + spec_text);
  }

  // The locale must be one ICU has collation data for, exactly as written: when ICU falls back
  // (to a parent, after canonicalising, or to root) the id is refused, naming what ICU would use.
  icu::Locale valid = icu->collator->getLocale(ULOC_VALID_LOCALE, status);
  if (U_FAILURE(status)) {
    return Status(ErrorCode::kOperationFailed, std::string("Failed to get locale from "
                                                           "icu::Collator: ") +
                                                   u_errorName(status) +
                                                   ". Collation spec: " + spec_text);
  }
  if (spec.locale.empty()) {
    return Status(ErrorCode::kBadValue,
                  "Field 'locale' cannot be the empty string in: " + spec_text);
  }
  const std::string valid_name = valid.getName();
  if (spec.locale != valid_name) {
    std::string message = "Field 'locale' is invalid in: " + spec_text;
    if (!valid_name.empty() && valid_name != "root") {
      message += ". Did you mean '" + valid_name + "'?";
    }
    return Status(ErrorCode::kBadValue, std::move(message));
  }
  spec.locale = locale.getName();

  CAIRN_RETURN_IF_ERROR(ApplyFields(doc, spec_text, icu->collator.get(), &spec));
  CAIRN_RETURN_IF_ERROR(CheckCombination(spec, spec_text));
  return std::shared_ptr<const Collator>(new Collator(std::move(spec), std::move(icu)));
}

int Collator::Compare(std::string_view a, std::string_view b) const {
  UErrorCode status = U_ZERO_ERROR;
  UCollationResult result = icu_->collator->compareUTF8(
      icu::StringPiece(a.data(), static_cast<int32_t>(a.size())),
      icu::StringPiece(b.data(), static_cast<int32_t>(b.size())), status);
  return static_cast<int>(result);  // UCOL_LESS -1, UCOL_EQUAL 0, UCOL_GREATER 1
}

void Collator::AppendComparisonKey(std::string_view s, std::string* out) const {
  // Ill-formed UTF-8 becomes U+FFFD here, as in compareUTF8, so keys agree with Compare.
  const icu::UnicodeString text =
      icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())));
  const size_t start = out->size();
  int32_t capacity = static_cast<int32_t>(s.size()) * 2 + 16;
  while (true) {
    out->resize(start + static_cast<size_t>(capacity));
    int32_t needed =
        icu_->collator->getSortKey(text, reinterpret_cast<uint8_t*>(out->data() + start), capacity);
    if (needed <= capacity) {
      out->resize(start + static_cast<size_t>(needed > 0 ? needed - 1 : 0));  // drop the NUL
      return;
    }
    capacity = needed;
  }
}

Result<std::shared_ptr<const Collator>> ParseQueryCollation(BsonView spec) {
  if (spec.empty()) return std::shared_ptr<const Collator>();
  return Collator::Make(spec);
}

Result<std::shared_ptr<const ExpressionContext>> ApplyQueryCollation(
    std::shared_ptr<const ExpressionContext> context, BsonView collation) {
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const Collator> collator, ParseQueryCollation(collation));
  if (collator == nullptr) return context;
  if (context == nullptr) context = ExpressionContext::Make();
  return context->WithCollator(std::move(collator));
}

}  // namespace cairn::query
