/**
 * Operators' sub-commands ({@code status}, {@code decommission}, {@code remove}, {@code repair},
 * {@code snapshot}): clients of a running node that know its API and nothing of its insides.
 */
package io.kvorum.node.cli.admin;
