// The page of `sqlgrade report`: styles, script and data inlined, a Content-Security-Policy that
// allows nothing but those exact inline blocks (by hash), so the page can reach no network and an
// escaping bug could not run injected script. See report.hpp.
#include "sqlgrade/core/digest.hpp"
#include "sqlgrade/runs/html/report.hpp"
#include "sqlgrade/runs/html/report_assets.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/version.hpp"

namespace sqlgrade::runs {

std::string json_for_script(const Json& j) {
  const std::string raw = j.dump(-1, ' ', true, Json::error_handler_t::replace);
  std::string out;
  out.reserve(raw.size() + raw.size() / 16);
  for (char c : raw) {
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else out += c;
  }
  return out;
}

std::string html_escape(std::string_view in) {
  const std::string s = utf8_lenient(in);
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string render_report(const std::vector<NamedRun>& runs, const ReportOptions& opt) {
  const Json data = report_data(runs, opt);
  const std::string script = std::string("(() => {\n") + kReportWidgetsJs + kReportVerifyJs + kReportMainJs + "})();\n";
  const std::string style = kReportCss;
  const std::string csp = "default-src 'none'; script-src 'sha256-" + base64(std::string_view(
                              reinterpret_cast<const char*>(sha256_bytes(script).data()), 32)) +
                          "'; style-src 'sha256-" +
                          base64(std::string_view(reinterpret_cast<const char*>(sha256_bytes(style).data()), 32)) +
                          "'; img-src data:; base-uri 'none'; form-action 'none'";
  std::string html;
  html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<meta http-equiv=\"Content-Security-Policy\" content=\"" + csp + "\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html += "<meta name=\"generator\" content=\"sqlgrade " SQLGRADE_VERSION "\">\n";
  html += "<title>" + html_escape(data["title"].get<std::string>()) + "</title>\n";
  html += "<style>" + style + "</style>\n</head>\n<body>\n";
  html += "<noscript>This report draws its tables and charts with JavaScript; please enable it.</noscript>\n";
  html += "<div id=\"app\"></div>\n";
  html += "<script id=\"sqlgrade-data\" type=\"application/json\">" + json_for_script(data) + "</script>\n";
  html += "<script>" + script + "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace sqlgrade::runs
