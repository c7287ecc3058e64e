package io.kvorum.node.gateway;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.KvorumApi;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An RFC 9457 {@code application/problem+json} error response, its {@code type} a {@link
 * ProblemType}.
 */
final class Problem {
  static final ObjectMapper JSON = new ObjectMapper();

  private final HttpResponseStatus status;
  private final Map<String, Object> body = new LinkedHashMap<>();

  private Problem(ProblemType type, HttpResponseStatus status, String detail) {
    this.status = status;
    body.put("type", type.uri());
    body.put("title", status.reasonPhrase());
    body.put("status", status.code());
    body.put("detail", detail);
  }

  static Problem of(ProblemType type, HttpResponseStatus status, String detail) {
    return new Problem(type, status, detail);
  }

  /** Adds an extension member, e.g. the offending parameter. */
  Problem with(String member, Object value) {
    body.put(member, value);
    return this;
  }

  HttpResponseStatus status() {
    return status;
  }

  /** The members of the problem, as its body lists them. */
  Map<String, Object> body() {
    return body;
  }

  FullHttpResponse toResponse() {
    byte[] bytes;
    try {
      bytes = JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render a problem", e);
    }
    FullHttpResponse response =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, KvorumApi.PROBLEM_JSON);
    return response;
  }
}
