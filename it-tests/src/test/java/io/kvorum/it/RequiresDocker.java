package io.kvorum.it;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.DockerClientFactory;

/**
 * Runs the annotated tests only with a Docker engine. Without one, a developer machine reports them
 * skipped with the reason; CI ({@code CI=true}) fails them: a container test silently skipped in CI
 * would prove nothing.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RequiresDocker.Condition.class)
public @interface RequiresDocker {
  /** The condition behind the annotation. */
  final class Condition implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      if (DockerClientFactory.instance().isDockerAvailable()) {
        return ConditionEvaluationResult.enabled("a Docker engine answers");
      }
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        throw new IllegalStateException(
            "CI=true but no Docker engine answers: the container tests must run in CI");
      }
      return ConditionEvaluationResult.disabled(
          "no Docker engine answers; start one (see ../shared/ENVIRONMENT.md) to run the container"
              + " tests");
    }
  }
}
