package io.kvorum.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The small JSON documents the client reads (problem details, the cluster view, a range's lines,
 * the operator's answers) as maps, lists, strings, numbers, booleans and nulls, on Jackson's
 * streaming parser; and the members of such a map, leniently: a member absent or of another type
 * reads as null, 0 or false, so that a node of another release that leaves one out is still read.
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

  /** The string member {@code name} of {@code object}, or null. */
  static String string(Map<String, Object> object, String name) {
    return object.get(name) instanceof String text ? text : null;
  }

  /** The number member {@code name} of {@code object} as a long, or 0. */
  static long number(Map<String, Object> object, String name) {
    return object.get(name) instanceof Number number ? number.longValue() : 0;
  }

  /** Whether the member {@code name} of {@code object} is {@code true}. */
  static boolean bool(Map<String, Object> object, String name) {
    return Boolean.TRUE.equals(object.get(name));
  }

  /** The date-time member {@code name} of {@code object} (ISO-8601), or null. */
  static Instant instant(Map<String, Object> object, String name) {
    String text = string(object, name);
    try {
      return text == null ? null : Instant.parse(text);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /** The object member {@code name} of {@code object}, or null. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> member(Map<String, Object> object, String name) {
    return object.get(name) instanceof Map<?, ?> map ? (Map<String, Object>) map : null;
  }

  /** The objects of the array member {@code name} of {@code object}; null if it is no array. */
  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> objects(Map<String, Object> object, String name) {
    if (!(object.get(name) instanceof List<?> array)) {
      return null;
    }
    List<Map<String, Object>> objects = new ArrayList<>();
    for (Object element : array) {
      if (element instanceof Map<?, ?> map) {
        objects.add((Map<String, Object>) map);
      }
    }
    return objects;
  }

  /** {@code object} and everything in it, unmodifiable (JSON nulls kept, order kept). */
  static Map<String, Object> frozen(Map<String, Object> object) {
    Map<String, Object> copy = new LinkedHashMap<>();
    object.forEach((name, value) -> copy.put(name, frozenValue(value)));
    return Collections.unmodifiableMap(copy);
  }

  @SuppressWarnings("unchecked")
  private static Object frozenValue(Object value) {
    return switch (value) {
      case Map<?, ?> map -> frozen((Map<String, Object>) map);
      case List<?> list -> {
        List<Object> copy = new ArrayList<>();
        list.forEach(element -> copy.add(frozenValue(element)));
        yield Collections.unmodifiableList(copy);
      }
      case null, default -> value;
    };
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
