/**
 * Checkers for simulated runs: pure functions over what the simulator recorded (the clients'
 * history, the records storage applied, the replicas' end state) that name every violated
 * guarantee.
 */
package io.kvorum.node.sim.check;
