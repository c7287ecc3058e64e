package io.kvorum.bench.report;

import io.kvorum.bench.load.PhaseResult;
import java.util.List;

/**
 * A rate sweep of one phase: short steps at rising rates until one misses the limit, then the
 * highest passing rate held for the full duration.
 *
 * @param phase {@code put}, {@code get}, {@code mixed} or {@code range}
 * @param steps the sweep's steps, in the order run
 * @param sustained the long run at the highest passing rate, or null when no step passed
 */
public record Sweep(String phase, List<PhaseResult> steps, PhaseResult sustained) {}
