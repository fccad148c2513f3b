//===- WorkChannel.cpp - Framed messages over TCP between ranks -----------===//

#include "kf/Runtime/WorkChannel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <random>
#include <sys/socket.h>
#include <unistd.h>

using namespace kf;

namespace {

/// The handshake's messages (tags the channel's users leave alone).
constexpr uint8_t kJoinTag = 250, kWelcomeTag = 251;

/// A frame: 'k', 'f', the tag, a zero byte, the payload's length (4 bytes,
/// big-endian), the payload. The magic makes a stranger on the port (or a
/// stream out of step) a protocol error, not a 4 GB allocation.
constexpr size_t kHeaderSize = 8;
constexpr uint32_t kMaxPayload = 1u << 30;

std::string header(uint8_t tag, uint32_t length) {
  std::string bytes(kHeaderSize, '\0');
  bytes[0] = 'k';
  bytes[1] = 'f';
  bytes[2] = char(tag);
  for (int i = 0; i < 4; ++i)
    bytes[4 + i] = char((length >> (8 * (3 - i))) & 0xff);
  return bytes;
}

bool makeNonBlocking(int fd) {
  int flags = fcntl(fd, F_GETFL, 0);
  return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

/// ppoll, not poll: the MPI tests preload a ppoll that stops returning to
/// make a stalled channel (test/Search/Inputs/stuck-ppoll.c); nothing else
/// in kf-evolve calls it.
int waitOn(std::vector<pollfd> &fds, std::chrono::milliseconds timeout) {
  timespec limit;
  limit.tv_sec = timeout.count() / 1000;
  limit.tv_nsec = (timeout.count() % 1000) * 1000000;
  return ppoll(fds.data(), fds.size(), &limit, nullptr);
}

uint32_t maskOf(unsigned prefix) {
  return prefix == 0 ? 0 : ~uint32_t(0) << (32 - std::min(prefix, 32u));
}

std::optional<uint32_t> parseIPv4(llvm::StringRef text) {
  in_addr address;
  if (inet_pton(AF_INET, text.str().c_str(), &address) != 1)
    return std::nullopt;
  return ntohl(address.s_addr);
}

} // namespace

ChannelConnection::ChannelConnection(int fd) : socket(fd) {
  if (!makeNonBlocking(fd))
    close(std::string("fcntl: ") + std::strerror(errno));
  int one = 1;
  // Replies are small and wanted at once.
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

ChannelConnection::~ChannelConnection() {
  if (socket >= 0)
    ::close(socket);
}

void ChannelConnection::close(llvm::StringRef why) {
  if (isClosed)
    return;
  isClosed = true;
  reason = why.str();
  if (socket >= 0)
    ::shutdown(socket, SHUT_RDWR);
}

void ChannelConnection::send(uint8_t tag, llvm::StringRef payload) {
  if (isClosed)
    return;
  // What was written is dropped before the outbox grows again.
  if (sentUpTo == outbox.size()) {
    outbox.clear();
    sentUpTo = 0;
  }
  outbox += header(tag, payload.size());
  outbox += payload;
  flush();
}

void ChannelConnection::flush() {
  while (!isClosed && sentUpTo < outbox.size()) {
    // MSG_NOSIGNAL: a write to a peer that died fails with EPIPE instead
    // of killing this process.
    ssize_t wrote = ::send(socket, outbox.data() + sentUpTo,
                           outbox.size() - sentUpTo, MSG_NOSIGNAL);
    if (wrote > 0) {
      sentUpTo += wrote;
      continue;
    }
    if (wrote < 0 && errno == EINTR)
      continue;
    if (wrote < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return;
    close(std::string("send: ") + std::strerror(errno));
  }
}

bool ChannelConnection::flushAll(
    std::optional<std::chrono::milliseconds> limit) {
  auto until = std::chrono::steady_clock::now() +
               limit.value_or(std::chrono::milliseconds(0));
  flush();
  while (hasUnsent() && !isClosed &&
         (!limit || std::chrono::steady_clock::now() < until)) {
    ChannelConnection *self = this;
    waitForChannels(self, std::chrono::milliseconds(20));
    flush();
  }
  return !hasUnsent();
}

void ChannelConnection::putBack(std::vector<ChannelMessage> messages) {
  messages.insert(messages.end(), std::make_move_iterator(early.begin()),
                  std::make_move_iterator(early.end()));
  early = std::move(messages);
}

std::vector<ChannelMessage> ChannelConnection::receive() {
  std::vector<ChannelMessage> messages = std::move(early);
  early.clear();
  char buffer[65536];
  while (!isClosed) {
    ssize_t got = ::recv(socket, buffer, sizeof buffer, 0);
    if (got > 0) {
      inbox.append(buffer, got);
      continue;
    }
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      break;
    close(got == 0 ? "the peer closed the connection"
                   : std::string("recv: ") + std::strerror(errno));
  }
  // Whole frames are taken out; a partial one waits for the rest (and is
  // lost with a connection that closes before it is complete).
  size_t at = 0;
  while (inbox.size() - at >= kHeaderSize) {
    const char *head = inbox.data() + at;
    if (head[0] != 'k' || head[1] != 'f' || head[3] != 0) {
      close("the peer does not speak kf's work channel");
      break;
    }
    uint32_t length = 0;
    for (int i = 0; i < 4; ++i)
      length = (length << 8) | uint8_t(head[4 + i]);
    if (length > kMaxPayload) {
      close("the peer sent a message over 1 GiB");
      break;
    }
    if (inbox.size() - at - kHeaderSize < length)
      break;
    messages.push_back(
        {uint8_t(head[2]), inbox.substr(at + kHeaderSize, length)});
    at += kHeaderSize + length;
  }
  inbox.erase(0, at);
  return messages;
}

std::optional<ChannelMessage>
ChannelConnection::receiveWithin(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    std::vector<ChannelMessage> got = receive();
    if (!got.empty()) {
      ChannelMessage first = std::move(got.front());
      early.assign(std::make_move_iterator(got.begin() + 1),
                   std::make_move_iterator(got.end()));
      return first;
    }
    auto now = std::chrono::steady_clock::now();
    if (isClosed || now >= deadline)
      return std::nullopt;
    ChannelConnection *self = this;
    waitForChannels(self, std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - now));
  }
}

llvm::Expected<std::unique_ptr<ChannelListener>> ChannelListener::open() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return llvm::createStringError(llvm::Twine("socket: ") +
                                   std::strerror(errno));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  address.sin_port = 0;
  socklen_t size = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) ||
      ::listen(fd, 128) ||
      getsockname(fd, reinterpret_cast<sockaddr *>(&address), &size) ||
      !makeNonBlocking(fd)) {
    std::string why = std::strerror(errno);
    ::close(fd);
    return llvm::createStringError("listening on a TCP port: " + why);
  }
  return std::unique_ptr<ChannelListener>(
      new ChannelListener(fd, ntohs(address.sin_port)));
}

ChannelListener::~ChannelListener() { ::close(socket); }

std::unique_ptr<ChannelConnection> ChannelListener::accept() {
  while (true) {
    int fd = ::accept4(socket, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0)
      return std::make_unique<ChannelConnection>(fd);
    if (errno == EINTR || errno == ECONNABORTED)
      continue;
    return nullptr;
  }
}

llvm::Expected<std::unique_ptr<ChannelConnection>>
kf::connectChannel(llvm::StringRef address, uint16_t port,
                   std::chrono::milliseconds timeout) {
  std::optional<uint32_t> ip = parseIPv4(address);
  if (!ip)
    return llvm::createStringError("'" + address + "' is no IPv4 address");
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return llvm::createStringError(llvm::Twine("socket: ") +
                                   std::strerror(errno));
  auto fail = [&](llvm::StringRef why) {
    ::close(fd);
    return llvm::createStringError(llvm::Twine("connecting to ") + address +
                                   ":" + llvm::Twine(port) + ": " + why);
  };
  if (!makeNonBlocking(fd))
    return fail(std::strerror(errno));
  sockaddr_in peer{};
  peer.sin_family = AF_INET;
  peer.sin_addr.s_addr = htonl(*ip);
  peer.sin_port = htons(port);
  if (::connect(fd, reinterpret_cast<sockaddr *>(&peer), sizeof peer) != 0) {
    if (errno != EINPROGRESS)
      return fail(std::strerror(errno));
    std::vector<pollfd> fds = {{fd, POLLOUT, 0}};
    int ready = waitOn(fds, timeout);
    if (ready == 0)
      return fail(
          llvm::formatv("no answer within {0} ms", timeout.count()).str());
    int error = 0;
    socklen_t size = sizeof error;
    if (ready < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size))
      return fail(std::strerror(errno));
    if (error)
      return fail(std::strerror(error));
  }
  return std::make_unique<ChannelConnection>(fd);
}

void kf::waitForChannels(llvm::ArrayRef<ChannelConnection *> connections,
                         std::chrono::milliseconds timeout,
                         const ChannelListener *listener) {
  std::vector<pollfd> fds;
  for (ChannelConnection *connection : connections)
    if (connection && !connection->closed())
      fds.push_back({connection->fd(),
                     short(POLLIN | (connection->hasUnsent() ? POLLOUT : 0)),
                     0});
  if (listener)
    fds.push_back({listener->fd(), POLLIN, 0});
  // Nothing to wait on: wait the time out, as a caller polling expects.
  waitOn(fds, timeout);
}

std::vector<InterfaceAddress> kf::localInterfaceAddresses() {
  std::vector<InterfaceAddress> found;
  ifaddrs *list = nullptr;
  if (getifaddrs(&list) != 0)
    return found;
  for (ifaddrs *entry = list; entry; entry = entry->ifa_next) {
    if (!entry->ifa_addr || entry->ifa_addr->sa_family != AF_INET ||
        !(entry->ifa_flags & IFF_UP))
      continue;
    char text[INET_ADDRSTRLEN] = {0};
    auto *address = reinterpret_cast<sockaddr_in *>(entry->ifa_addr);
    if (!inet_ntop(AF_INET, &address->sin_addr, text, sizeof text))
      continue;
    unsigned prefix = 32;
    if (entry->ifa_netmask)
      prefix = __builtin_popcount(
          reinterpret_cast<sockaddr_in *>(entry->ifa_netmask)->sin_addr.s_addr);
    found.push_back({text, prefix, bool(entry->ifa_flags & IFF_LOOPBACK)});
  }
  freeifaddrs(list);
  return found;
}

std::string
kf::formatInterfaceAddresses(llvm::ArrayRef<InterfaceAddress> list) {
  std::string text;
  for (const InterfaceAddress &entry : list) {
    if (!text.empty())
      text += ",";
    text += entry.address + "/" + std::to_string(entry.prefix);
  }
  return text;
}

std::vector<InterfaceAddress>
kf::parseInterfaceAddresses(llvm::StringRef text) {
  std::vector<InterfaceAddress> list;
  llvm::SmallVector<llvm::StringRef> entries;
  text.split(entries, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef entry : entries) {
    auto [address, prefixText] = entry.trim().split('/');
    unsigned prefix = 32;
    std::optional<uint32_t> ip = parseIPv4(address);
    if (!ip || (!prefixText.empty() &&
                (prefixText.getAsInteger(10, prefix) || prefix > 32)))
      continue;
    list.push_back({address.str(), prefix, (*ip >> 24) == 127});
  }
  return list;
}

std::vector<std::string>
kf::addressesToTry(llvm::ArrayRef<InterfaceAddress> listener,
                   llvm::ArrayRef<InterfaceAddress> local) {
  auto shared = [&](const InterfaceAddress &theirs) {
    std::optional<uint32_t> their = parseIPv4(theirs.address);
    if (!their)
      return false;
    return llvm::any_of(local, [&](const InterfaceAddress &mine) {
      std::optional<uint32_t> my = parseIPv4(mine.address);
      unsigned prefix = std::min(theirs.prefix, mine.prefix);
      return my && (*my & maskOf(prefix)) == (*their & maskOf(prefix));
    });
  };
  std::vector<std::string> order;
  for (int pass = 0; pass < 3; ++pass)
    for (const InterfaceAddress &entry : listener) {
      bool onShared = shared(entry);
      int rank = onShared ? (entry.loopback ? 1 : 0) : 2;
      if (rank == pass)
        order.push_back(entry.address);
    }
  return order;
}

ChannelInvitation ChannelInvitation::to(const ChannelListener &listener) {
  ChannelInvitation invitation;
  std::random_device random;
  for (int i = 0; i < 4; ++i)
    invitation.cookie += llvm::utohexstr(random(), /*LowerCase=*/true, 8);
  invitation.port = listener.port();
  invitation.addresses = localInterfaceAddresses();
  return invitation;
}

std::string ChannelInvitation::format() const {
  return cookie + " " + std::to_string(port) + " " +
         formatInterfaceAddresses(addresses);
}

std::optional<ChannelInvitation>
ChannelInvitation::parse(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef> fields;
  text.split(fields, ' ', -1, /*KeepEmpty=*/false);
  ChannelInvitation invitation;
  if (fields.size() != 3 || fields[0].empty() ||
      fields[1].getAsInteger(10, invitation.port) || !invitation.port)
    return std::nullopt;
  invitation.cookie = fields[0].str();
  invitation.addresses = parseInterfaceAddresses(fields[2]);
  if (invitation.addresses.empty())
    return std::nullopt;
  return invitation;
}

llvm::Expected<std::unique_ptr<ChannelConnection>>
kf::joinChannel(const ChannelInvitation &invitation, llvm::StringRef role,
                std::chrono::milliseconds perAddress) {
  std::string answers;
  for (const std::string &address :
       addressesToTry(invitation.addresses, localInterfaceAddresses())) {
    llvm::Expected<std::unique_ptr<ChannelConnection>> connected =
        connectChannel(address, invitation.port, perAddress);
    std::string why;
    if (connected) {
      std::unique_ptr<ChannelConnection> connection = std::move(*connected);
      connection->send(kJoinTag, invitation.cookie + "\n" + role.str());
      std::optional<ChannelMessage> welcome =
          connection->receiveWithin(perAddress);
      if (welcome && welcome->tag == kWelcomeTag &&
          welcome->payload == invitation.cookie)
        return std::move(connection);
      why = llvm::formatv("{0}:{1}: {2}", address, invitation.port,
                          connection->closed() ? connection->closeReason().str()
                          : welcome ? std::string("an unexpected answer")
                                    : llvm::formatv("no welcome within {0} ms",
                                                    perAddress.count())
                                          .str())
                .str();
    } else {
      why = llvm::toString(connected.takeError());
    }
    answers += (answers.empty() ? "" : "; ") + why;
  }
  if (answers.empty())
    answers = "the invitation names no address";
  return llvm::createStringError("could not join the work channel (" + answers +
                                 ")");
}

std::map<std::string, std::unique_ptr<ChannelConnection>>
kf::acceptJoins(ChannelListener &listener, llvm::StringRef cookie,
                llvm::ArrayRef<std::string> roles,
                std::chrono::steady_clock::time_point deadline) {
  std::map<std::string, std::unique_ptr<ChannelConnection>> joined;
  std::vector<std::unique_ptr<ChannelConnection>> waiting;
  auto allJoined = [&] {
    return llvm::all_of(
        roles, [&](const std::string &role) { return joined.count(role); });
  };
  while (!allJoined() && std::chrono::steady_clock::now() < deadline) {
    std::vector<ChannelConnection *> open;
    for (auto &connection : waiting)
      open.push_back(connection.get());
    waitForChannels(open, std::chrono::milliseconds(50), &listener);
    while (std::unique_ptr<ChannelConnection> connection = listener.accept())
      waiting.push_back(std::move(connection));
    for (auto &connection : waiting) {
      std::vector<ChannelMessage> messages = connection->receive();
      if (messages.empty() && !connection->closed())
        continue;
      // The first message decides: a join with the cookie and a role
      // expected, or the connection is dropped.
      if (!messages.empty() && messages.front().tag == kJoinTag) {
        auto [secret, roleRef] =
            llvm::StringRef(messages.front().payload).split('\n');
        // A copy: the payload it points into goes with the join message.
        std::string role = roleRef.str();
        if (secret == cookie && llvm::is_contained(roles, role)) {
          connection->send(kWelcomeTag, cookie);
          messages.erase(messages.begin());
          connection->putBack(std::move(messages));
          joined[role] = std::move(connection);
          continue;
        }
      }
      connection.reset();
    }
    llvm::erase_if(waiting, [](const auto &connection) { return !connection; });
  }
  return joined;
}
