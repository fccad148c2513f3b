//===- Report.cpp - The report of a search: Markdown and an SVG plot ------===//

#include "kf/Search/Report.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

using namespace kf;

namespace {

const char *const kIslandColors[] = {"#1f77b4", "#d62728", "#2ca02c",
                                     "#9467bd", "#ff7f0e", "#8c564b",
                                     "#e377c2", "#7f7f7f"};

/// Text for XML and Markdown tables.
std::string escape(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '|':
      out += "\\|";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string milliseconds(double seconds) {
  return llvm::formatv("{0:F3} ms", seconds * 1e3).str();
}

} // namespace

std::string kf::renderProgressSVG(const SearchResult &result,
                                  unsigned islands) {
  const double width = 720, height = 360, left = 70, right = 150, top = 30,
               bottom = 45;
  double plotWidth = width - left - right, plotHeight = height - top - bottom;
  // Best so far per island, as (evaluation, seconds) steps.
  std::vector<std::vector<std::pair<unsigned, double>>> series(
      std::max(1u, islands));
  double lo = INFINITY, hi = 0;
  for (const SearchCandidate &candidate : result.candidates) {
    if (!candidate.outcome.isCorrect() || candidate.outcome.seconds <= 0)
      continue;
    auto &line = series[candidate.island % series.size()];
    if (!line.empty() && line.back().second <= candidate.outcome.seconds)
      continue;
    line.push_back({candidate.id + 1, candidate.outcome.seconds});
    lo = std::min(lo, candidate.outcome.seconds);
    hi = std::max(hi, candidate.outcome.seconds);
  }
  unsigned evaluations = std::max<size_t>(1, result.candidates.size());
  std::string svg;
  llvm::raw_string_ostream os(svg);
  os << llvm::formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                      "width=\"{0}\" height=\"{1}\" font-family=\"sans-serif\" "
                      "font-size=\"12\">\n",
                      width, height);
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  os << llvm::formatv("<text x=\"{0}\" y=\"18\">best time so far per island "
                      "(log scale) over evaluations</text>\n",
                      left);
  if (hi <= 0) {
    os << llvm::formatv("<text x=\"{0}\" y=\"{1}\">no correct candidate</text>"
                        "\n</svg>\n",
                        left, top + plotHeight / 2);
    return svg;
  }
  // A log axis with some room above and below.
  double logLo = std::log10(lo) - 0.05, logHi = std::log10(hi) + 0.05;
  auto x = [&](double evaluation) {
    return left + plotWidth * evaluation / evaluations;
  };
  auto y = [&](double seconds) {
    return top + plotHeight * (logHi - std::log10(seconds)) / (logHi - logLo);
  };
  os << llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" "
                      "fill=\"none\" stroke=\"black\"/>\n",
                      left, top, plotWidth, plotHeight);
  for (double value : {lo, std::sqrt(lo * hi), hi})
    os << llvm::formatv(
        "<text x=\"{0}\" y=\"{1:F1}\" text-anchor=\"end\">{2}</text>\n",
        left - 4, y(value) + 4, escape(milliseconds(value)));
  for (unsigned tick : {0u, evaluations / 2, evaluations})
    os << llvm::formatv("<text x=\"{0:F1}\" y=\"{1}\" "
                        "text-anchor=\"middle\">{2}</text>\n",
                        x(tick), top + plotHeight + 16, tick);
  os << llvm::formatv("<text x=\"{0:F1}\" y=\"{1}\" text-anchor=\"middle\">"
                      "evaluations</text>\n",
                      left + plotWidth / 2, height - 8);
  for (auto [island, line] : llvm::enumerate(series)) {
    const char *color = kIslandColors[island % std::size(kIslandColors)];
    if (!line.empty()) {
      std::string points;
      for (auto [index, point] : llvm::enumerate(line)) {
        // Steps: hold the best until the next improvement.
        if (index)
          points += llvm::formatv("{0:F1},{1:F1} ", x(point.first),
                                  y(line[index - 1].second));
        points +=
            llvm::formatv("{0:F1},{1:F1} ", x(point.first), y(point.second));
      }
      points +=
          llvm::formatv("{0:F1},{1:F1}", x(evaluations), y(line.back().second));
      os << llvm::formatv("<polyline fill=\"none\" stroke=\"{0}\" "
                          "stroke-width=\"2\" points=\"{1}\"/>\n",
                          color, points);
    }
    double legendY = top + 16 * island + 10;
    os << llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                        "stroke=\"{3}\" stroke-width=\"2\"/>\n",
                        width - right + 10, legendY, width - right + 30, color);
    os << llvm::formatv(
        "<text x=\"{0}\" y=\"{1}\">island {2} ({3})</text>\n",
        width - right + 34, legendY + 4, island,
        stringifyExpertFocus(static_cast<ExpertFocus>(island % 4)));
  }
  os << "</svg>\n";
  return svg;
}

std::string kf::renderReport(const ReportInput &input) {
  const SearchResult &result = *input.result;
  std::string text;
  llvm::raw_string_ostream os(text);
  const SearchCandidate &first = result.candidates[result.defaultIndex];
  bool predicted = llvm::StringRef(input.evaluator).starts_with("cost-model");
  os << "# kf-evolve report: " << input.problem << "\n\n";
  if (predicted)
    os << "> **The times below are predictions of the static cost model, "
          "not measurements**: no GPU evaluated these candidates.\n\n";
  os << "- Evaluator: " << input.evaluator << "\n"
     << "- Seed: " << input.seed << ", islands: " << input.islands
     << ", evaluations: " << result.candidates.size()
     << " (stopped: " << result.stopReason
     << "), duplicates skipped: " << result.duplicatesSkipped << "\n";
  for (const std::string &note : input.seedNotes)
    os << "- Seed: " << note << "\n";
  os << "\n";
  if (!result.bestIndex) {
    os << "No candidate was correct.\n";
    return text;
  }
  const SearchCandidate &best = result.candidates[*result.bestIndex];
  // Kernels per run and the bytes they move (the cost model's estimate),
  // against what the problem must move at least.
  auto size = [&](const Outcome &outcome) -> std::string {
    if (!outcome.kernels)
      return "— | —";
    std::string bytes = llvm::formatv("{0:F1} MB", outcome.globalBytes / 1e6);
    if (input.compulsoryBytes > 0)
      bytes += llvm::formatv(" ({0:F2}x)",
                             outcome.globalBytes / input.compulsoryBytes);
    return std::to_string(outcome.kernels) + " | " + bytes;
  };
  os << "## Result\n\n| | candidate | time | status | kernels | global "
        "memory (estimated) |\n|---|---|---|---|---|---|\n";
  os << "| " << input.baseline << " | " << first.id << " | "
     << (first.outcome.isCorrect() ? milliseconds(first.outcome.seconds) : "—")
     << " | " << first.outcome.statusText() << " | " << size(first.outcome)
     << " |\n";
  os << "| best | " << best.id << " | " << milliseconds(best.outcome.seconds)
     << " | correct | " << size(best.outcome) << " |\n\n";
  if (input.compulsoryBytes > 0)
    os << llvm::formatv("The problem's compulsory bytes (inputs read once, "
                        "outputs written once): {0:F1} MB; global memory is "
                        "the cost model's count of the sectors the kernels' "
                        "accesses touch, with its ratio to them.\n\n",
                        input.compulsoryBytes / 1e6);
  if (first.outcome.isCorrect())
    os << llvm::formatv("Speedup over the {0}: **{1:F2}x**.\n\n",
                        input.baseline,
                        first.outcome.seconds / best.outcome.seconds);
  else
    os << "The " << input.baseline << " is not a correct candidate ("
       << first.outcome.statusText()
       << "), so there is no speedup over it.\n\n";
  if (best.hasGenome)
    os << "Best schedule: `" << escape(describeGenome(best.genome))
       << "` (best.schedule.mlir; its PTX in best.ptx).\n\n";
  else
    os << "Best candidate: a " << stringifyCandidateKind(best.kind) << " from "
       << best.expert << " (\"" << escape(best.change) << "\"; "
       << (best.kind == CandidateKind::Schedule ? "best.schedule.mlir"
                                                : "best.kernel.mlir")
       << "; its PTX in best.ptx).\n\n";
  os << "![best time so far per island](progress.svg)\n\n";

  // The lineage: from the winner back to its root.
  os << "## Lineage of the winner\n\n| candidate | island | expert | change | "
        "time |\n|---|---|---|---|---|\n";
  std::vector<unsigned> lineage;
  for (std::optional<unsigned> at = best.id; at;
       at = result.candidates[*at].parent)
    lineage.push_back(*at);
  std::reverse(lineage.begin(), lineage.end());
  for (unsigned index : lineage) {
    const SearchCandidate &c = result.candidates[index];
    os << "| " << c.id << " | " << c.island << " | " << escape(c.expert)
       << " | " << escape(c.change.empty() ? "—" : c.change) << " | "
       << (c.outcome.isCorrect() ? milliseconds(c.outcome.seconds)
                                 : c.outcome.statusText())
       << " |\n";
  }

  os << "\n## Diagnosis before and after\n\n";
  std::string baselineTitle = input.baseline;
  if (!baselineTitle.empty())
    baselineTitle[0] = llvm::toUpper(baselineTitle[0]);
  for (auto [title, diagnosis] :
       {std::pair<const char *, const DiagnosisSummary *>{
            baselineTitle.c_str(), &input.defaultDiagnosis},
        {"Best candidate", &input.bestDiagnosis}}) {
    os << "**" << title << "**: " << diagnosis->kernels << " kernel(s), "
       << "predicted "
       << (diagnosis->bottleneck.empty() ? "—" : diagnosis->bottleneck) << ".";
    if (diagnosis->findings.empty()) {
      os << " No findings.\n\n";
      continue;
    }
    os << "\n\n";
    // One line per distinct message.
    llvm::StringMap<unsigned> seen;
    for (const llvm::json::Value &finding : diagnosis->findings) {
      const llvm::json::Object *object = finding.getAsObject();
      if (!object)
        continue;
      std::string line = (object->getString("kind").value_or("?") + ": " +
                          object->getString("message").value_or(""))
                             .str();
      if (seen[line]++ == 0)
        os << "- " << escape(line) << "\n";
    }
    os << "\n";
  }

  // What each expert and action achieved.
  os << "## Experts\n\n| expert | action | tried | correct | improved on "
        "parent |\n|---|---|---|---|---|\n";
  std::map<std::pair<std::string, std::string>, std::array<unsigned, 3>> tally;
  for (const SearchCandidate &c : result.candidates) {
    std::string action =
        c.action ? stringifyMutationAction(*c.action).str() : "—";
    auto &counts = tally[{c.expert, action}];
    ++counts[0];
    bool correct = c.outcome.isCorrect();
    counts[1] += correct;
    if (correct && c.parent) {
      const Outcome &parent = result.candidates[*c.parent].outcome;
      counts[2] += parent.isCorrect() && c.outcome.seconds < parent.seconds;
    }
  }
  for (const auto &[key, counts] : tally)
    os << "| " << escape(key.first) << " | " << key.second << " | " << counts[0]
       << " | " << counts[1] << " | " << counts[2] << " |\n";

  // Why candidates failed, counted.
  std::map<std::string, unsigned> failures;
  for (const SearchCandidate &c : result.candidates)
    if (!c.outcome.isCorrect())
      ++failures[c.outcome.statusText()];
  if (!failures.empty()) {
    os << "\n## Candidates that did not count\n\n| status | candidates "
          "|\n|---|---|\n";
    for (const auto &[status, count] : failures)
      os << "| " << escape(status) << " | " << count << " |\n";
    // Why, for the first of them (every one is in result.json).
    constexpr unsigned kShown = 25;
    os << "\n| candidate | expert | change | status | reason |\n"
          "|---|---|---|---|---|\n";
    unsigned shown = 0, total = 0;
    for (const SearchCandidate &c : result.candidates) {
      if (c.outcome.isCorrect())
        continue;
      if (++total > kShown)
        continue;
      ++shown;
      std::string reason =
          llvm::StringRef(c.outcome.error).split('\n').first.str();
      if (reason.size() > 200)
        reason = reason.substr(0, 200) + "...";
      os << "| " << c.id << " | " << escape(c.expert) << " | "
         << escape(c.change.empty() ? "—" : c.change) << " | "
         << escape(c.outcome.statusText()) << " | "
         << escape(reason.empty() ? "—" : reason) << " |\n";
    }
    if (total > shown)
      os << "\n(" << total - shown << " more in result.json.)\n";
  }
  if (!input.llmDescription.empty()) {
    os << "\n## LLM experts\n\n- Endpoint: " << input.llmDescription << "\n";
    if (const llvm::json::Object *usage = input.llmUsage.getAsObject())
      os << llvm::formatv(
          "- Requests: {0} sent, {1} answered from the cache, {2} failed; "
          "tokens: {3} in, {4} out; cost: ${5:F4}\n",
          usage->getInteger("requests").value_or(0),
          usage->getInteger("cached_answers").value_or(0),
          usage->getInteger("failed_requests").value_or(0),
          usage->getInteger("input_tokens").value_or(0),
          usage->getInteger("output_tokens").value_or(0),
          usage->getNumber("dollars").value_or(0));
    if (!input.llmFailures.empty()) {
      os << "- Proposals that never became candidates:\n";
      for (const std::string &failure : input.llmFailures)
        os << "  - " << escape(failure) << "\n";
    }
  }
  os << "\nEvery candidate, with its schedule and lineage: result.json and "
        "candidates.jsonl.\n";
  return text;
}
