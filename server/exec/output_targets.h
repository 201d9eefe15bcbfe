// The server's side of the writing stages ($out, $merge): query::OutputTargets over the catalog
// and the CollectionWriter write path (query/ knows no storage). $out writes a temporary
// collection created with the target's options and indexes, then renames it over the target in
// one catalog write; $merge writes the target directly, finding documents by its 'on' fields
// (other than _id only through a unique index on exactly them: 51183).
#pragma once

#include <memory>
#include <string>

#include "common/interrupt.h"
#include "query/pipeline/output_target.h"
#include "server/write/write_context.h"

namespace cairn::server {

// The OutputTargets of one aggregate running in database `db`; with bypass_document_validation
// the targets' validators are not applied (the aggregate's bypassDocumentValidation). $merge's
// lookups and $out's index builds are interrupted through `interrupt` (the command's slot).
std::shared_ptr<query::OutputTargets> MakeOutputTargets(
    WriteContext& state, std::string db, bool bypass_document_validation,
    std::shared_ptr<const InterruptSlot> interrupt);

}  // namespace cairn::server
