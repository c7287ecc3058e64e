package io.kvorum.it;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs the annotated tests only with a {@code helm} binary ({@code KVORUM_HELM}, else on the {@code
 * PATH}). Without one, a developer machine reports them skipped with the reason; CI ({@code
 * CI=true}) fails them, as {@link RequiresDocker} does.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RequiresHelm.Condition.class)
public @interface RequiresHelm {
  /** The condition behind the annotation. */
  final class Condition implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      if (RenderedChart.helm().isPresent()) {
        return ConditionEvaluationResult.enabled("helm found");
      }
      String reason =
          "no helm binary: set KVORUM_HELM or put helm on the PATH (helm/check.sh installs one"
              + " into ~/.cache/kvorum-tools/helm)";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        throw new IllegalStateException(
            "CI=true but " + reason + ": the chart test must run in CI");
      }
      return ConditionEvaluationResult.disabled(reason);
    }
  }
}
