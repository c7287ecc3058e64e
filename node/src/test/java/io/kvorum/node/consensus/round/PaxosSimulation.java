package io.kvorum.node.consensus.round;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * Acceptors and proposers of one key in one thread, run by a seeded random schedule over a lossy
 * network that drops, duplicates and reorders messages, with proposers that crash mid-round and
 * acceptors that restart (keeping their durable state, losing what was in flight to them), and
 * acceptors that raise their ballot floor and forget the states {@link AcceptorState#purgeable}
 * below it. Each proposer increments a counter with conditional writes; {@link History} records
 * what every operation answered and every proposal a quorum accepted, for {@link
 * RegisterSpecification}.
 */
final class PaxosSimulation {
  /**
   * @param purge the chance, at each step, that an acceptor raises its floor and purges
   */
  record Faults(
      double drop, double duplicate, double proposerCrash, double acceptorRestart, double purge) {}

  private sealed interface Body {}

  private record Prepare(Ballot ballot) implements Body {}

  private record Accept(Proposal proposal) implements Body {}

  private record Commit(Record record) implements Body {}

  private record Answer(Reply reply, int acceptor) implements Body {}

  /** A message to acceptor {@code to} ({@code toProposer} false) or proposer {@code to}. */
  private record Message(int to, boolean toProposer, int sender, long epoch, Body body) {}

  private final class Proposer {
    final int index;
    final NodeId id;
    long clock;
    long operationStart;
    long epoch;
    Optional<Record> known = Optional.empty();
    int opsLeft;
    History.Operation op;
    Round round;
    ConditionalWrite write;
    int attempts;
    long resumeAt = -1;
    final List<Proposal> earlier = new ArrayList<>();

    Proposer(int index, int ops) {
      this.index = index;
      this.id = NodeId.of("p" + index);
      this.opsLeft = ops;
      this.clock = random.nextInt(50);
    }

    void startOperation() {
      opsLeft--;
      operationStart = clock;
      earlier.clear();
      attempts = 0;
      long counter = known.filter(r -> !r.tombstone()).map(PaxosSimulation::counter).orElse(0L);
      op = history.begin(index, step);
      long parent = known.map(r -> r.version().value()).orElse(-1L);
      byte[] value = (counter + 1 + ":" + op.id() + ":" + parent).getBytes(UTF_8);
      Condition condition =
          known.isEmpty() ? new Condition.IfAbsent() : new Condition.IfMatch(known.get().version());
      write = ConditionalWrite.put(condition, value, 0, acceptors.length);
      startRound();
    }

    void startRound() {
      clock += 1 + random.nextInt(3);
      round =
          new Round(
              new Ballot(Version.of(clock, index), id),
              write,
              acceptors.length,
              quorum,
              0,
              earlier);
      for (int a = 0; a < acceptors.length; a++) {
        send(new Message(a, false, index, epoch, new Prepare(round.ballot())));
      }
    }

    void onStep(Round.Step step) {
      switch (step) {
        case Round.Step.Wait ignored -> {}
        case Round.Step.SendAccept accept -> {
          round.proposedWrite().flatMap(Proposal::value).ifPresent(history::proposed);
          for (int a = 0; a < acceptors.length; a++) {
            send(new Message(a, false, index, epoch, new Accept(accept.proposal())));
          }
        }
        case Round.Step.Done done -> onOutcome(done.outcome());
      }
    }

    void onOutcome(Outcome outcome) {
      round.proposedWrite().ifPresent(earlier::add);
      switch (outcome) {
        case Outcome.Applied applied -> {
          commit(applied.written());
          known = Optional.of(applied.written());
          history.applied(op, applied.written(), PaxosSimulation.this.step);
          op = null;
        }
        case Outcome.Refused refused -> {
          refused.current().ifPresent(this::commit);
          known = refused.current();
          history.refused(op, refused.current(), PaxosSimulation.this.step);
          op = null;
          opsLeft++;
        }
        case Outcome.Contended contended -> {
          clock = Math.max(clock, contended.above().physicalMillis());
          attempts++;
          resumeAt = PaxosSimulation.this.step + random.nextInt(20 << Math.min(attempts, 6));
          round = null;
          return;
        }
        case Outcome.Indeterminate ignored -> unknown();
        case Outcome.Unreachable ignored -> unknown();
      }
      round = null;
    }

    void unknown() {
      history.unknown(op);
      op = null;
      known = Optional.empty();
    }

    void commit(Record record) {
      for (int a = 0; a < acceptors.length; a++) {
        send(new Message(a, false, index, epoch, new Commit(record)));
      }
    }

    void crash() {
      if (op != null) {
        history.unknown(op);
      }
      op = null;
      round = null;
      known = Optional.empty();
      epoch++;
    }
  }

  private final Random random;
  private final Faults faults;
  private final int quorum;
  private final AcceptorState[] acceptors;
  private final Version[] floors;
  private final Optional<Record>[] stored;
  private final Proposer[] proposers;
  private final List<Message> network = new ArrayList<>();
  private final History history = new History();
  private long step;
  private int purges;

  @SuppressWarnings("unchecked")
  PaxosSimulation(long seed, int acceptorCount, int proposerCount, int opsEach, Faults faults) {
    this.random = new Random(seed);
    this.faults = faults;
    this.quorum = acceptorCount / 2 + 1;
    this.acceptors = new AcceptorState[acceptorCount];
    this.stored = new Optional[acceptorCount];
    this.floors = new Version[acceptorCount];
    for (int a = 0; a < acceptorCount; a++) {
      acceptors[a] = AcceptorState.EMPTY;
      floors[a] = Version.ZERO;
      stored[a] = Optional.empty();
    }
    this.proposers = new Proposer[proposerCount];
    for (int p = 0; p < proposerCount; p++) {
      proposers[p] = new Proposer(p, opsEach);
    }
  }

  static long counter(Record record) {
    String text = new String(record.value(), UTF_8);
    return Long.parseLong(text.split(":")[0]);
  }

  static long operation(Record record) {
    return Long.parseLong(new String(record.value(), UTF_8).split(":")[1]);
  }

  /** The version of the value this one was computed from; -1 for none. */
  static long parent(Record record) {
    return Long.parseLong(new String(record.value(), UTF_8).split(":")[2]);
  }

  /**
   * Runs until every operation is answered and the network is quiet, or {@code maxSteps}; a further
   * run (after {@link #more}) goes on from where the last one stopped.
   */
  History run(int maxSteps) {
    for (long end = step + maxSteps; step < end; step++) {
      for (Proposer p : proposers) {
        if (p.op == null && p.opsLeft > 0 && random.nextInt(4) == 0) {
          p.startOperation();
        } else if (p.op != null && p.round == null && p.resumeAt <= step) {
          p.startRound();
        }
      }
      if (random.nextDouble() < faults.proposerCrash()) {
        proposers[random.nextInt(proposers.length)].crash();
      }
      if (random.nextDouble() < faults.acceptorRestart()) {
        int restarted = random.nextInt(acceptors.length);
        network.removeIf(m -> !m.toProposer() && m.to() == restarted);
      }
      // Drawn only when purging, so that runs without purges replay the schedules they always had.
      if (faults.purge() > 0 && random.nextDouble() < faults.purge()) {
        purge(random.nextInt(acceptors.length));
      }
      if (network.isEmpty()) {
        if (idle()) {
          break;
        }
        if (waitingToResume()) {
          continue;
        }
        for (Proposer p : proposers) {
          if (p.round != null) {
            // Nothing left in flight: every answer it waits for is lost, as a deadline tells.
            for (int a = 0; a < acceptors.length && p.round != null; a++) {
              p.onStep(p.round.onFailure(NodeId.of("a" + a)));
            }
          }
        }
        continue;
      }
      deliver(network.remove(random.nextInt(network.size())));
    }
    history.chosen(chosen());
    return history;
  }

  /**
   * Acceptor {@code a} raises its floor, as a node does to its wall clock minus a window that every
   * request outlasts: below the first ballot of every operation under way (below every proposer's
   * clock when none is), then forgets its state if that is purgeable. Messages of crashed proposers
   * and of ended rounds may still be in flight below it.
   */
  private void purge(int a) {
    long below = Long.MAX_VALUE;
    long newest = 0;
    for (Proposer p : proposers) {
      if (p.op != null) {
        below = Math.min(below, p.operationStart);
      }
      newest = Math.max(newest, p.clock);
    }
    below = (below == Long.MAX_VALUE ? newest : below) - random.nextInt(3);
    if (below > 0 && Version.of(below, 0).compareTo(floors[a]) > 0) {
      floors[a] = Version.of(below, 0);
    }
    if (!acceptors[a].equals(AcceptorState.EMPTY) && acceptors[a].purgeable(floors[a], stored[a])) {
      acceptors[a] = AcceptorState.EMPTY;
      purges++;
    }
  }

  /**
   * Once a run is over (no operation under way): every acceptor raises its floor past every ballot
   * issued and forgets what it may.
   */
  void purgeAll() {
    long newest = 0;
    for (Proposer p : proposers) {
      newest = Math.max(newest, p.clock);
    }
    for (int a = 0; a < acceptors.length; a++) {
      floors[a] = Version.of(newest, Version.MAX_LOGICAL);
      if (!acceptors[a].equals(AcceptorState.EMPTY)
          && acceptors[a].purgeable(floors[a], stored[a])) {
        acceptors[a] = AcceptorState.EMPTY;
        purges++;
      }
    }
  }

  /** Gives every proposer {@code ops} more operations, for a further {@link #run}. */
  void more(int ops) {
    for (Proposer p : proposers) {
      p.opsLeft += ops;
    }
  }

  /** How many acceptor states were forgotten. */
  int purges() {
    return purges;
  }

  private boolean waitingToResume() {
    for (Proposer p : proposers) {
      if (p.op != null && p.round == null) {
        return true;
      }
    }
    return false;
  }

  private boolean idle() {
    for (Proposer p : proposers) {
      if (p.op != null || p.opsLeft > 0) {
        return false;
      }
    }
    return true;
  }

  private void send(Message message) {
    network.add(message);
  }

  private void deliver(Message message) {
    if (random.nextDouble() < faults.drop()) {
      return;
    }
    if (random.nextDouble() < faults.duplicate()) {
      network.add(message);
    }
    if (message.toProposer()) {
      Proposer p = proposers[message.to()];
      Answer answer = (Answer) message.body();
      if (p.round != null && message.epoch() == p.epoch) {
        p.onStep(p.round.onReply(NodeId.of("a" + answer.acceptor()), answer.reply()));
      }
      return;
    }
    int a = message.to();
    AcceptorState seen = acceptors[a].floored(floors[a]);
    AcceptorState.Transition transition =
        switch (message.body()) {
          case Prepare prepare -> seen.prepare(prepare.ballot(), stored[a]);
          case Accept accept -> seen.accept(accept.proposal());
          case Commit commit -> {
            stored[a] = Optional.of(Record.newest(stored[a].orElse(null), commit.record()));
            yield null;
          }
          case Answer ignored -> throw new IllegalStateException("an answer sent to an acceptor");
        };
    if (transition != null) {
      if (!transition.state().equals(seen)) {
        acceptors[a] = transition.state();
      }
      if (transition.reply() instanceof Reply.Accepted) {
        accepts.computeIfAbsent(transition.reply().ballot(), b -> new java.util.HashSet<>()).add(a);
        proposals.put(transition.reply().ballot(), ((Accept) message.body()).proposal());
      }
      send(
          new Message(
              message.sender(), true, a, message.epoch(), new Answer(transition.reply(), a)));
    }
  }

  private final java.util.Map<Ballot, java.util.Set<Integer>> accepts = new java.util.TreeMap<>();
  private final java.util.Map<Ballot, Proposal> proposals = new java.util.HashMap<>();

  /** The proposals a quorum of acceptors accepted, in ballot order. */
  private List<Proposal> chosen() {
    List<Proposal> chosen = new ArrayList<>();
    accepts.forEach(
        (ballot, by) -> {
          if (by.size() >= quorum) {
            chosen.add(proposals.get(ballot));
          }
        });
    return chosen;
  }

  /** The key's value after the run: the value of the last proposal a quorum accepted. */
  Optional<Record> finalValue() {
    List<Proposal> chosen = chosen();
    return chosen.isEmpty() ? Optional.empty() : chosen.get(chosen.size() - 1).value();
  }
}
