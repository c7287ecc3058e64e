package io.kvorum.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The small JSON documents the client reads (problem details, the cluster view, a range's lines) as
 * maps, lists, strings, numbers, booleans and nulls, on Jackson's streaming parser.
 */
final class Json {
  private static final JsonFactory FACTORY = new JsonFactory();

  private Json() {}

  /** The document's top-level object. */
  static Map<String, Object> object(byte[] document) throws IOException {
    try (JsonParser parser = FACTORY.createParser(document)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("not a JSON object");
      }
      Map<String, Object> object = readObject(parser);
      if (parser.nextToken() != null) {
        throw new IOException("text after the JSON object");
      }
      return object;
    }
  }

  /** {@code value} (what {@link #object} reads: maps, lists, strings, …) as JSON text. */
  static String text(Object value) {
    StringWriter out = new StringWriter();
    try (JsonGenerator generator = FACTORY.createGenerator(out)) {
      write(generator, value);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    return out.toString();
  }

  private static void write(JsonGenerator generator, Object value) throws IOException {
    switch (value) {
      case null -> generator.writeNull();
      case Map<?, ?> map -> {
        generator.writeStartObject();
        for (Map.Entry<?, ?> field : map.entrySet()) {
          generator.writeFieldName(String.valueOf(field.getKey()));
          write(generator, field.getValue());
        }
        generator.writeEndObject();
      }
      case List<?> list -> {
        generator.writeStartArray();
        for (Object element : list) {
          write(generator, element);
        }
        generator.writeEndArray();
      }
      case Boolean bool -> generator.writeBoolean(bool);
      case Number number -> generator.writeNumber(number.toString());
      default -> generator.writeString(value.toString());
    }
  }

  private static Object read(JsonParser parser) throws IOException {
    JsonToken token = parser.currentToken();
    if (token == null) {
      throw new IOException("the JSON document ended early");
    }
    return switch (token) {
      case START_OBJECT -> readObject(parser);
      case START_ARRAY -> readArray(parser);
      case VALUE_STRING -> parser.getText();
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> parser.getNumberValue();
      case VALUE_TRUE -> Boolean.TRUE;
      case VALUE_FALSE -> Boolean.FALSE;
      case VALUE_NULL -> null;
      default -> throw new IOException("unexpected JSON " + token);
    };
  }

  private static Map<String, Object> readObject(JsonParser parser) throws IOException {
    Map<String, Object> object = new LinkedHashMap<>();
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String name = parser.currentName();
      parser.nextToken();
      object.put(name, read(parser));
    }
    return object;
  }

  private static List<Object> readArray(JsonParser parser) throws IOException {
    List<Object> array = new ArrayList<>();
    while (parser.nextToken() != JsonToken.END_ARRAY) {
      array.add(read(parser));
    }
    return array;
  }
}
