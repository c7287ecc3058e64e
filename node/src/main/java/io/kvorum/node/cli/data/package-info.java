/**
 * Users' data sub-commands ({@code get}, {@code put}, {@code delete}, {@code scan}): one request
 * each to a running node through {@code KvorumClient}, knowing its API alone.
 */
package io.kvorum.node.cli.data;
