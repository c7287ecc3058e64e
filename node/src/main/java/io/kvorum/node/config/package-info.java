/**
 * Node configuration: command-line flags and their environment twins, validated into one record.
 */
package io.kvorum.node.config;
