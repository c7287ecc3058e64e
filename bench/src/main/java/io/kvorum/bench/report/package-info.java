/** The Markdown report of a benchmark run, with its PNG plots. */
package io.kvorum.bench.report;
