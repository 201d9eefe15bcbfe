#include "tools/bench/report.h"

#include <cmath>
#include <cstdio>
#include <fstream>

namespace cairn::bench {

std::string Thousands(double value) {
  long long v = std::llround(value);
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

namespace {

std::string Fixed(double v, int decimals) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string Pad(std::string s, size_t width, bool right = false) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

std::string Latency(double p50, double p99) {
  std::string s = "p50 ";
  return s.append(Thousands(p50)).append("us p99 ").append(Thousands(p99)).append("us");
}

std::string Number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string OptNumber(const std::optional<double>& v) { return v ? Number(*v) : "null"; }

}  // namespace

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// Built by appends only: GCC 12 warns falsely (-Wrestrict) on `"literal" + std::string&&`.
std::string FormatLine(const Result& r) {
  std::string line = Pad(r.name, 17);
  if (r.skipped) return line.append("skipped: ").append(*r.skipped);
  if (r.error) return line.append("error: ").append(*r.error);
  line.append(Pad(Thousands(r.figure), 10, true)).append(" ").append(Pad(r.unit, 7));
  line.append(Pad(r.p50_us ? Latency(*r.p50_us, *r.p99_us) : std::string(), 24));
  if (r.ceiling_what.empty()) {  // a figure without a ceiling of its own
    if (!r.note.empty()) line.append("  ").append(r.note);
    return line;
  }
  std::string what = "(";
  what.append(r.ceiling_what);
  if (r.ceiling_p50_us) what.append(" ").append(Latency(*r.ceiling_p50_us, *r.ceiling_p99_us));
  what.append(")");
  line.append("  ceiling ").append(Pad(Thousands(r.ceiling), 11, true)).append(" ");
  line.append(Pad(r.ceiling_unit, 7)).append(Pad(what, 30));
  line.append("  ratio ").append(Fixed(r.ratio(), 2));
  if (r.target > 0) line.append("  (target >= ").append(Fixed(r.target, 1)).append(")");
  if (!r.note.empty()) line.append("  ").append(r.note);
  return line;
}

bool WriteJson(const std::string& path, const std::vector<Result>& results,
               const std::string& context_json) {
  std::ofstream out(path);
  if (!out) return false;
  out << "[\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    bool ran = !r.skipped && !r.error;
    out << "  {\"name\": " << JsonString(r.name);
    out << ", \"figure\": " << (ran ? Number(r.figure) : "null");
    out << ", \"unit\": " << (ran ? JsonString(r.unit) : "null");
    out << ", \"ceiling\": " << (ran ? Number(r.ceiling) : "null");
    out << ", \"ceiling_unit\": " << (ran ? JsonString(r.ceiling_unit) : "null");
    out << ", \"ceiling_what\": " << (ran ? JsonString(r.ceiling_what) : "null");
    out << ", \"ratio\": " << (ran ? Number(r.ratio()) : "null");
    out << ", \"p50_us\": " << OptNumber(r.p50_us) << ", \"p99_us\": " << OptNumber(r.p99_us);
    out << ", \"ceiling_p50_us\": " << OptNumber(r.ceiling_p50_us)
        << ", \"ceiling_p99_us\": " << OptNumber(r.ceiling_p99_us);
    out << ", \"note\": " << (r.note.empty() ? "null" : JsonString(r.note));
    out << ", \"target\": " << (r.target > 0 ? Number(r.target) : "null");
    out << ", \"skipped\": " << (r.skipped ? JsonString(*r.skipped) : "null");
    out << ", \"error\": " << (r.error ? JsonString(*r.error) : "null");
    out << ", \"run\": " << context_json << "}" << (i + 1 < results.size() ? "," : "") << "\n";
  }
  out << "]\n";
  return static_cast<bool>(out);
}

}  // namespace cairn::bench
