package io.kvorum.node.sim.check;

import io.kvorum.node.core.Version;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * Wing &amp; Gong's search for a linearization of one register's history, with Lowe's memoization
 * as Porcupine does it: depth first over which pending operation takes effect next, never
 * revisiting a (set of operations done, register state) pair. Exponential in the worst case (many
 * operations pending at once), so bounded by a number of steps.
 *
 * <p>An operation without an answer may take effect at any time after its call, or never. Where it
 * would change nothing (its expected version is not the register's), the search does not take it: a
 * linearization that has it there is one with it moved to the end, where every other operation has
 * taken effect and it changes nothing or something no answer sees. So the search ends, found, once
 * every answered operation has taken effect. Taking such operations as no-ops wherever they could
 * go made fifty-odd timed-out writes of one key, each behind a value that could not be committed,
 * too many states to search (PAXOS_PURGE seeds 20302 and 29151).
 */
final class LinearizationSearch {
  private static final int NIL = -1;

  private final List<CasOp> ops;
  private final Set<Version> answered = new HashSet<>();
  private final int head;
  private final int[] entryOp;
  private final boolean[] isCall;
  private final int[] match;
  private final int[] prev;
  private final int[] next;

  // The deepest point the search reached, for the message of a history that fails.
  private int deepest = -1;
  private Register deepestState;
  private int deepestLast = NIL;
  private int deepestBlocked = NIL;

  /** What the search found, with an explanation when not linearizable or not finished. */
  record Result(boolean linearizable, boolean finished, String explanation) {}

  private static final Result LINEARIZABLE = new Result(true, true, "linearizable");

  private LinearizationSearch(List<CasOp> ops) {
    this.ops = ops;
    int n = ops.size();
    long end = 0;
    for (CasOp op : ops) {
      end = Math.max(end, op.ret());
      if (op.result() == Outcome.OK) {
        answered.add(op.tag());
      }
    }
    // An unknown operation may take effect at any time after its call: it returns after all.
    long never = end + 1;
    long[] time = new long[2 * n];
    for (int i = 0; i < n; i++) {
      CasOp op = ops.get(i);
      time[2 * i] = op.call();
      time[2 * i + 1] = op.result() == Outcome.UNKNOWN ? never : op.ret();
    }
    // Calls before returns at the same time: operations that touch in time may overlap.
    Integer[] order =
        IntStream.range(0, 2 * n)
            .boxed()
            .sorted(
                Comparator.<Integer>comparingLong(e -> time[e])
                    .thenComparingInt(e -> e & 1)
                    .thenComparingInt(e -> e))
            .toArray(Integer[]::new);
    head = 2 * n;
    entryOp = new int[2 * n];
    isCall = new boolean[2 * n];
    match = new int[2 * n];
    prev = new int[2 * n + 1];
    next = new int[2 * n + 1];
    int[] position = new int[2 * n];
    for (int p = 0; p < 2 * n; p++) {
      entryOp[p] = order[p] >> 1;
      isCall[p] = (order[p] & 1) == 0;
      position[order[p]] = p;
    }
    for (int i = 0; i < n; i++) {
      match[position[2 * i]] = position[2 * i + 1];
    }
    Arrays.fill(next, NIL);
    int last = head;
    for (int p = 0; p < 2 * n; p++) {
      next[last] = p;
      prev[p] = last;
      last = p;
    }
  }

  /** Searches {@code ops} for a linearization, giving up after {@code maxSteps} steps. */
  static Result search(List<CasOp> ops, long maxSteps) {
    return new LinearizationSearch(ops).run(maxSteps);
  }

  private record Memo(BitSet done, Register state) {}

  private Result run(long maxSteps) {
    Register state = Register.ABSENT;
    BitSet done = new BitSet(ops.size());
    int[] stackEntry = new int[ops.size()];
    Register[] stackState = new Register[ops.size()];
    int depth = 0;
    Set<Memo> seen = new HashSet<>();
    int entry = next[head];
    long steps = 0;
    while (next[head] != NIL) {
      if (++steps > maxSteps) {
        return new Result(false, false, "gave up after " + maxSteps + " search steps");
      }
      if (isCall[entry]) {
        int op = entryOp[entry];
        Register after = state.step(op, ops.get(op), answered);
        // An unknown operation that would change nothing here is left for the end instead (see
        // the class's comment): taking it as a no-op at every point it could go multiplied the
        // states by two for each one pending.
        if (after != null && !(after == state && unknown(op))) {
          done.set(op);
          if (seen.add(new Memo((BitSet) done.clone(), after))) {
            stackEntry[depth] = entry;
            stackState[depth++] = state;
            state = after;
            lift(entry);
            entry = next[head];
            continue;
          }
          done.clear(op);
        }
        entry = next[entry];
      } else {
        if (unknown(entryOp[entry])) {
          // The returns of unknown operations come last: every answered one has taken effect, and
          // the unknown ones still pending take effect after them, each as the state allows.
          return LINEARIZABLE;
        }
        // A return: its operation must have taken effect already, so this branch fails.
        if (depth > deepest) {
          deepest = depth;
          deepestState = state;
          deepestLast = depth == 0 ? NIL : entryOp[stackEntry[depth - 1]];
          deepestBlocked = entryOp[entry];
        }
        if (depth == 0) {
          return new Result(false, true, explanation());
        }
        int top = stackEntry[--depth];
        state = stackState[depth];
        done.clear(entryOp[top]);
        unlift(top);
        entry = next[top];
      }
    }
    return LINEARIZABLE;
  }

  private boolean unknown(int op) {
    return ops.get(op).result() == Outcome.UNKNOWN;
  }

  private String explanation() {
    return "no order of the "
        + ops.size()
        + " operations explains their answers; the longest order found takes "
        + deepest
        + (deepestLast == NIL ? "" : ", the last " + ops.get(deepestLast) + ",")
        + " leaving the register "
        + deepestState
        + ", and then "
        + ops.get(deepestBlocked)
        + " cannot take effect before it returned";
  }

  /** Takes a call and its return out of the list of pending entries. */
  private void lift(int call) {
    unlink(call);
    unlink(match[call]);
  }

  /** Puts back what {@link #lift} took out, in the reverse order. */
  private void unlift(int call) {
    relink(match[call]);
    relink(call);
  }

  private void unlink(int entry) {
    next[prev[entry]] = next[entry];
    if (next[entry] != NIL) {
      prev[next[entry]] = prev[entry];
    }
  }

  private void relink(int entry) {
    next[prev[entry]] = entry;
    if (next[entry] != NIL) {
      prev[next[entry]] = entry;
    }
  }
}
