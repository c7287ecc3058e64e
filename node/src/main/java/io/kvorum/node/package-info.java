/** The kvorum node program: {@code main}, command line and the wiring of all components. */
package io.kvorum.node;
