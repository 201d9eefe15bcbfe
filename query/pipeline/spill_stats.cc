// SpillStatsSlot (spill_stats.h).
#include "query/pipeline/spill_stats.h"

namespace cairn::query {

SpillStatsSlot::SpillStatsSlot(const PipelineOptions& options) : stats_(options.stats) {
  if (stats_ == nullptr) return;
  slot_ = &stats_->spilling_stages.emplace_back();
  slot_->position = stats_->parsing_position;
}

void SpillStatsSlot::Record(const ExternalSorter* sorter) const {
  if (slot_ == nullptr || sorter == nullptr) return;
  slot_->spills = sorter->spills();
  slot_->used_disk = slot_->spills > 0;
}

}  // namespace cairn::query
