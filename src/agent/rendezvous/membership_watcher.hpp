#pragma once
/// What the agent's control loop waits on besides its workers: a file descriptor that becomes
/// readable when the round needs this agent back (agents are waiting to join, or the round was
/// replaced). EtcdRoundWatcher and C10dRoundWatcher implement it.

namespace ejob::agent {

/// A background watch over one completed round.
class RoundWatcher {
 public:
  virtual ~RoundWatcher() = default;
  /// Readable once the round needs this agent to re-rendezvous.
  [[nodiscard]] virtual int fd() const = 0;
  /// Stops the watch (joins its thread).
  virtual void stop() = 0;
};

}  // namespace ejob::agent
