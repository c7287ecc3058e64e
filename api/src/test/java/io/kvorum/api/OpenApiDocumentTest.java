package io.kvorum.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

class OpenApiDocumentTest {
  @Test
  @SuppressWarnings("unchecked")
  void isAnOpenApi31DocumentOfEveryPublicPath() throws Exception {
    Map<String, Object> doc;
    try (InputStream in = KvorumApi.class.getResourceAsStream(KvorumApi.OPENAPI_RESOURCE)) {
      assertThat(in).as("the document is on the class path").isNotNull();
      doc = new Yaml().load(in);
    }
    assertThat(doc.get("openapi")).isEqualTo("3.1.0");
    Map<String, Object> paths = (Map<String, Object>) doc.get("paths");
    assertThat(paths)
        .containsKeys(
            KvorumApi.PATH_ENTITY,
            KvorumApi.PATH_ENTITIES,
            KvorumApi.PATH_STATUS,
            KvorumApi.PATH_LIVE,
            KvorumApi.PATH_READY,
            KvorumApi.PATH_METRICS);
  }
}
