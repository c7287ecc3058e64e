/**
 * Operators' sub-commands ({@code status}, {@code decommission}, {@code remove}): HTTP clients of a
 * running node that know its API and nothing of its insides.
 */
package io.kvorum.node.cli.admin;
