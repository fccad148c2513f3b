//===- WorkChannel.h - Framed messages over TCP between ranks ---*- C++ -*-===//
//
// The channel an MPI job's ranks exchange candidates and results on
// (MpiCluster): MPI starts the ranks and tells each where its driving rank
// listens, then every message travels on a TCP connection of its own. On a
// socket, a peer that dies is a defined event: the stream ends, is reset, or
// a write fails, and every call here returns at once. Open MPI 4.1 defines
// nothing after a send to a dead process, and its TCP transport was seen to
// spin forever in a healthy rank's next call (docs/search.md), so no MPI
// call carries work once the job runs.
//
// Plain POSIX sockets, not a messaging library: the channel needs framing,
// non-blocking writes and end-of-stream, about 300 lines; ZeroMQ would hide
// the one event that matters here (a peer's death) behind reconnection.
//
//===----------------------------------------------------------------------===//

#ifndef KF_RUNTIME_WORKCHANNEL_H
#define KF_RUNTIME_WORKCHANNEL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kf {

/// One message: a kind (chosen by the channel's user) and bytes.
struct ChannelMessage {
  uint8_t tag = 0;
  std::string payload;
};

/// One TCP connection with non-blocking I/O. Sends never block: what the
/// socket does not take yet waits in an outbox, written by later calls. A
/// peer that dies (or speaks something that is not the channel's framing)
/// makes the connection closed(), with the reason.
class ChannelConnection {
public:
  /// Takes ownership of a connected socket and makes it non-blocking.
  explicit ChannelConnection(int fd);
  ~ChannelConnection();
  ChannelConnection(const ChannelConnection &) = delete;
  ChannelConnection &operator=(const ChannelConnection &) = delete;

  int fd() const { return socket; }
  /// Queues one message and writes what the socket takes now.
  void send(uint8_t tag, llvm::StringRef payload);
  /// Writes what waits in the outbox, as far as the socket takes it.
  void flush();
  /// Waits until everything queued is written (or the connection closes),
  /// for at most `limit` when one is given; returns whether all was written.
  bool flushAll(std::optional<std::chrono::milliseconds> limit);
  /// Reads what has arrived (never waits) and returns the messages it
  /// completes, in order.
  std::vector<ChannelMessage> receive();
  /// Waits up to `timeout` for the next message; none when the time ran
  /// out or the connection closed.
  std::optional<ChannelMessage>
  receiveWithin(std::chrono::milliseconds timeout);
  /// Gives back messages taken out of receive() but not handled yet: the
  /// next receive returns them first.
  void putBack(std::vector<ChannelMessage> messages);
  bool hasUnsent() const { return sentUpTo < outbox.size(); }
  bool closed() const { return isClosed; }
  /// Why the connection closed (empty while open).
  llvm::StringRef closeReason() const { return reason; }
  /// Closes the socket; the peer sees the stream end.
  void close(llvm::StringRef why = "closed here");

private:
  int socket;
  std::string inbox, outbox;
  size_t sentUpTo = 0;
  bool isClosed = false;
  std::string reason;
  /// Messages taken in by receiveWithin beyond the one it returns.
  std::vector<ChannelMessage> early;
};

/// A socket listening on every IPv4 interface of this host, at a port the
/// system chose.
class ChannelListener {
public:
  static llvm::Expected<std::unique_ptr<ChannelListener>> open();
  ~ChannelListener();
  ChannelListener(const ChannelListener &) = delete;
  ChannelListener &operator=(const ChannelListener &) = delete;

  uint16_t port() const { return boundPort; }
  int fd() const { return socket; }
  /// A connection that waits to be accepted, or null when none does.
  std::unique_ptr<ChannelConnection> accept();

private:
  ChannelListener(int socket, uint16_t port)
      : socket(socket), boundPort(port) {}
  int socket;
  uint16_t boundPort;
};

/// Connects to an IPv4 address within `timeout`.
llvm::Expected<std::unique_ptr<ChannelConnection>>
connectChannel(llvm::StringRef address, uint16_t port,
               std::chrono::milliseconds timeout);

/// Waits up to `timeout` until one of `connections` has input (or room for
/// what it has unsent, or has closed), or `listener` has a connection to
/// accept. Callers then receive/flush/accept, which never wait.
void waitForChannels(llvm::ArrayRef<ChannelConnection *> connections,
                     std::chrono::milliseconds timeout,
                     const ChannelListener *listener = nullptr);

/// An IPv4 address of an interface that is up, with its prefix length.
struct InterfaceAddress {
  std::string address;
  unsigned prefix = 32;
  bool loopback = false;
};

/// This host's IPv4 interface addresses.
std::vector<InterfaceAddress> localInterfaceAddresses();
/// "10.0.0.1/24,127.0.0.1/8", and back (entries that do not parse are left
/// out).
std::string formatInterfaceAddresses(llvm::ArrayRef<InterfaceAddress> list);
std::vector<InterfaceAddress> parseInterfaceAddresses(llvm::StringRef text);
/// The order to try a listener's addresses in from a host whose own are
/// `local`: those on a subnet of this host first (others than loopback
/// before loopback), then the rest in their order. Trying an address on no
/// shared subnet may wait for the connect timeout; one shared is reached at
/// once or refused at once.
std::vector<std::string>
addressesToTry(llvm::ArrayRef<InterfaceAddress> listener,
               llvm::ArrayRef<InterfaceAddress> local);

/// What a joining side needs to reach a listener: the port, the
/// listener's addresses, and a secret it must present (so that a stranger
/// on the port, or a rank of another job, is turned away).
struct ChannelInvitation {
  std::string cookie;
  uint16_t port = 0;
  std::vector<InterfaceAddress> addresses;

  /// To `listener` on this host's addresses, with a fresh random secret.
  static ChannelInvitation to(const ChannelListener &listener);
  /// "<cookie> <port> <addresses>", and back (none: not an invitation).
  std::string format() const;
  static std::optional<ChannelInvitation> parse(llvm::StringRef text);
};

/// Joins the listener of `invitation` as `role`: tries its addresses in
/// addressesToTry's order, each for at most `perAddress` (connect, then the
/// listener's welcome), and returns the first connection welcomed. The
/// error says what every address answered.
llvm::Expected<std::unique_ptr<ChannelConnection>>
joinChannel(const ChannelInvitation &invitation, llvm::StringRef role,
            std::chrono::milliseconds perAddress);

/// The listener's side: accepts connections until each of `roles` has
/// joined with `cookie` (a later join of a role replaces its earlier
/// connection) or `deadline` passes; connections with another cookie, an
/// unknown role or no join message are closed. Returns the joined roles'
/// connections.
std::map<std::string, std::unique_ptr<ChannelConnection>>
acceptJoins(ChannelListener &listener, llvm::StringRef cookie,
            llvm::ArrayRef<std::string> roles,
            std::chrono::steady_clock::time_point deadline);

} // namespace kf

#endif // KF_RUNTIME_WORKCHANNEL_H
