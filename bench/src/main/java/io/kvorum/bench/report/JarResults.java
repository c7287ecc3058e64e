package io.kvorum.bench.report;

import java.nio.file.Path;
import java.util.List;

/**
 * Everything measured with one node jar.
 *
 * @param label the jar's name in the report ({@code --jar label=path})
 * @param jar the node jar
 * @param preload the closed-loop preload of the key space
 * @param sweeps the load phases, in the order run
 * @param saturation the flat-out write run, or null when the phase was not run
 * @param idle the idle CPU just after start and once warm, those measured ({@code idle} phase)
 * @param warmUp the warm-up curve from a cold start, or null when the phase was not run
 */
public record JarResults(
    String label,
    Path jar,
    Run preload,
    List<Sweep> sweeps,
    Run saturation,
    List<IdleCpu> idle,
    WarmUpCurve warmUp) {
  public JarResults {
    sweeps = List.copyOf(sweeps);
    idle = List.copyOf(idle);
  }

  /** Without the idle and warm-up phases. */
  public JarResults(String label, Path jar, Run preload, List<Sweep> sweeps, Run saturation) {
    this(label, jar, preload, sweeps, saturation, List.of(), null);
  }

  /** The idle measurement made {@code when}, or null. */
  public IdleCpu idle(String when) {
    return idle.stream().filter(i -> i.when().equals(when)).findFirst().orElse(null);
  }

  /** The phase's runs, or null when it was not run. */
  public Sweep sweep(String phase) {
    return sweeps.stream().filter(s -> s.phase().equals(phase)).findFirst().orElse(null);
  }
}
