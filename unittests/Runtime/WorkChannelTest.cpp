//===- WorkChannelTest.cpp - Framed messages over TCP between ranks -------===//

#include "kf/Runtime/WorkChannel.h"

#include "gtest/gtest.h"

#include <chrono>
#include <thread>

using namespace kf;
using namespace std::chrono_literals;

namespace {

/// A listener on this host and a connection joined to it as `role`.
struct Pair {
  std::unique_ptr<ChannelListener> listener;
  std::unique_ptr<ChannelConnection> near, far;
};

Pair connectedPair() {
  Pair pair;
  llvm::Expected<std::unique_ptr<ChannelListener>> listener =
      ChannelListener::open();
  EXPECT_TRUE(!!listener) << llvm::toString(listener.takeError());
  pair.listener = std::move(*listener);
  ChannelInvitation invitation = ChannelInvitation::to(*pair.listener);
  std::thread joiner([&] {
    llvm::Expected<std::unique_ptr<ChannelConnection>> joined =
        joinChannel(invitation, "rank 1", 5000ms);
    EXPECT_TRUE(!!joined) << llvm::toString(joined.takeError());
    if (joined)
      pair.far = std::move(*joined);
  });
  auto joined = acceptJoins(*pair.listener, invitation.cookie, {"rank 1"},
                            std::chrono::steady_clock::now() + 10s);
  joiner.join();
  EXPECT_EQ(joined.count("rank 1"), 1u);
  pair.near = std::move(joined["rank 1"]);
  return pair;
}

TEST(WorkChannel, MessagesArriveWholeAndInOrder) {
  Pair pair = connectedPair();
  ASSERT_TRUE(pair.near && pair.far);
  std::string big(3 << 20, 'x'); // more than a socket buffer takes at once
  pair.near->send(1, "first");
  pair.near->send(2, "");
  pair.near->send(3, big);
  std::vector<ChannelMessage> got;
  auto until = std::chrono::steady_clock::now() + 10s;
  while (got.size() < 3 && std::chrono::steady_clock::now() < until) {
    pair.near->flush();
    if (std::optional<ChannelMessage> message = pair.far->receiveWithin(10ms))
      got.push_back(std::move(*message));
  }
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].tag, 1);
  EXPECT_EQ(got[0].payload, "first");
  EXPECT_EQ(got[1].tag, 2);
  EXPECT_EQ(got[1].payload, "");
  EXPECT_EQ(got[2].tag, 3);
  EXPECT_EQ(got[2].payload.size(), big.size());
}

// A peer that dies is an event, never a wait: the stream ends, and writes
// to it fail instead of blocking or raising SIGPIPE.
TEST(WorkChannel, DeadPeerClosesTheConnection) {
  Pair pair = connectedPair();
  ASSERT_TRUE(pair.near && pair.far);
  pair.far.reset();
  std::optional<ChannelMessage> none = pair.near->receiveWithin(5000ms);
  EXPECT_FALSE(none);
  EXPECT_TRUE(pair.near->closed());
  EXPECT_FALSE(pair.near->closeReason().empty());
  pair.near->send(1, "to nobody");
  EXPECT_TRUE(pair.near->closed());
}

// A peer that stops reading (a stalled rank) never blocks the sender: what
// the socket does not take waits in the outbox.
TEST(WorkChannel, SendsNeverBlock) {
  Pair pair = connectedPair();
  ASSERT_TRUE(pair.near && pair.far);
  std::string chunk(1 << 20, 'y');
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 64; ++i)
    pair.near->send(1, chunk);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_TRUE(pair.near->hasUnsent());
  EXPECT_FALSE(pair.near->closed());
}

TEST(WorkChannel, StrangersAndWrongSecretsAreTurnedAway) {
  llvm::Expected<std::unique_ptr<ChannelListener>> listener =
      ChannelListener::open();
  ASSERT_TRUE(!!listener);
  ChannelInvitation invitation = ChannelInvitation::to(**listener);
  ChannelInvitation wrong = invitation;
  wrong.cookie = "not-the-secret";
  std::string wrongError, unknownError;
  std::thread joiner([&] {
    llvm::Expected<std::unique_ptr<ChannelConnection>> joined =
        joinChannel(wrong, "rank 1", 1000ms);
    wrongError = joined ? "" : llvm::toString(joined.takeError());
    joined = joinChannel(invitation, "rank 7", 1000ms);
    unknownError = joined ? "" : llvm::toString(joined.takeError());
  });
  auto joined = acceptJoins(**listener, invitation.cookie, {"rank 1"},
                            std::chrono::steady_clock::now() + 3s);
  joiner.join();
  EXPECT_TRUE(joined.empty());
  EXPECT_NE(wrongError.find("could not join the work channel"),
            std::string::npos)
      << wrongError;
  EXPECT_NE(unknownError.find("could not join"), std::string::npos);
}

TEST(WorkChannel, NobodyListeningIsAnError) {
  llvm::Expected<std::unique_ptr<ChannelListener>> listener =
      ChannelListener::open();
  ASSERT_TRUE(!!listener);
  uint16_t port = (*listener)->port();
  listener->reset(); // the port is free again: connecting is refused
  llvm::Expected<std::unique_ptr<ChannelConnection>> connected =
      connectChannel("127.0.0.1", port, 1000ms);
  ASSERT_FALSE(!!connected);
  EXPECT_NE(llvm::toString(connected.takeError()).find("127.0.0.1"),
            std::string::npos);
}

TEST(WorkChannel, InvitationsRoundTrip) {
  ChannelInvitation invitation;
  invitation.cookie = "abc123";
  invitation.port = 4242;
  invitation.addresses = {{"10.1.2.3", 24, false}, {"127.0.0.1", 8, true}};
  std::optional<ChannelInvitation> parsed =
      ChannelInvitation::parse(invitation.format());
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->cookie, "abc123");
  EXPECT_EQ(parsed->port, 4242);
  ASSERT_EQ(parsed->addresses.size(), 2u);
  EXPECT_EQ(parsed->addresses[0].address, "10.1.2.3");
  EXPECT_EQ(parsed->addresses[0].prefix, 24u);
  EXPECT_TRUE(parsed->addresses[1].loopback);
  EXPECT_FALSE(ChannelInvitation::parse(""));
  EXPECT_FALSE(ChannelInvitation::parse("abc 0 10.0.0.1/8"));
  EXPECT_FALSE(ChannelInvitation::parse("abc 80 nonsense"));
}

// Addresses on a subnet the joining host shares come first (reached or
// refused at once), loopback after the others shared, unshared last.
TEST(WorkChannel, AddressesOnSharedSubnetsFirst) {
  std::vector<InterfaceAddress> listener = {{"172.17.0.2", 16, false},
                                            {"127.0.0.1", 8, true},
                                            {"10.77.5.1", 24, false}};
  std::vector<InterfaceAddress> inNamespace = {{"10.77.5.2", 24, false},
                                               {"127.0.0.1", 8, true}};
  EXPECT_EQ(addressesToTry(listener, inNamespace),
            (std::vector<std::string>{"10.77.5.1", "127.0.0.1", "172.17.0.2"}));
  std::vector<InterfaceAddress> sameHost = listener;
  EXPECT_EQ(addressesToTry(listener, sameHost),
            (std::vector<std::string>{"172.17.0.2", "10.77.5.1", "127.0.0.1"}));
}

} // namespace
