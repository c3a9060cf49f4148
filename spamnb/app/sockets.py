"""The daemon's listening sockets: a Unix socket that appears at its path
with mode 0600 in a directory only its owner can write, and spamd's TCP
listener limited to the networks allowed; and who may connect to each
(Listener.refusal).

Whoever can write to the socket's directory can put their own socket in the
daemon's place, so the directory is checked (ours, closed to writers) before
anything listens in it; a socket is bound under a private name and renamed
into place, so a client never finds one that is not yet listening or not
yet 0600.
"""

from __future__ import annotations

import os
import socket
import struct

from ..errors import OptionError
from .server import MAX_CONNECTIONS, _reason


def spamd_listener(address: str, allow=()) -> tuple[Listener, tuple | None]:
    """A listening socket for SPAMC clients at `address`: a path (a Unix socket,
    served to this user only, like the main one) or `[HOST:]PORT` (TCP, on
    127.0.0.1 unless HOST is given, served to the networks in `allow`, by
    default loopback only).  Returns the listener and, for a Unix socket, its identity."""
    import ipaddress

    if "/" in address:
        directory = os.path.dirname(os.path.abspath(address))
        own_directory(directory)
        check_not_serving(address)
        sock, identity = listen_at(address, directory)
        return Listener(sock, "spamd"), identity
    host, _, port_text = address.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise OptionError(f"--spamd {address}: give a socket path or [HOST:]PORT, e.g. 783 or 127.0.0.1:783")
    try:
        networks = [ipaddress.ip_network(item, strict=False) for item in allow] or \
            [ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128")]
    except ValueError as error:
        raise OptionError(f"--spamd-allow: {error}") from None
    try:
        infos = socket.getaddrinfo(host, int(port_text), type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST)
    except socket.gaierror:
        raise OptionError(f"--spamd {address}: {host} is not an IP address") from None
    family, kind, proto, _, where = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(where)
        sock.listen(MAX_CONNECTIONS)
    except OSError as error:
        sock.close()
        raise OptionError(f"cannot listen for spamd clients on {address}: {_reason(error)}") from None
    sock.setblocking(False)
    return Listener(sock, "spamd", networks), None


def own_directory(directory: str) -> None:
    """Create `directory` with mode 0700, or check an existing one is ours and closed to writers."""
    import stat

    try:
        os.mkdir(directory, 0o700)
    except FileExistsError:
        pass
    except OSError as error:
        raise OptionError(f"cannot create the socket directory {directory}: {_reason(error)}") from None
    info = os.stat(directory)
    if not stat.S_ISDIR(info.st_mode):
        raise OptionError(f"{directory} is not a directory")
    # Whoever can write to the directory can put their own socket in our place.
    if info.st_uid != os.geteuid():
        raise OptionError(f"refusing the socket directory {directory}: it belongs to uid {info.st_uid}, "
                          "not to you; choose another --socket")
    if info.st_mode & 0o022:
        raise OptionError(f"refusing the socket directory {directory}: others can write to it "
                          f"(mode {stat.S_IMODE(info.st_mode):o}); choose another --socket")


def check_not_serving(path: str) -> None:
    """Raise OptionError if something listens on `path`; a stale socket file is left to be replaced."""
    import stat

    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(info.st_mode):
        raise OptionError(f"{path} exists and is not a socket; remove it or choose another --socket")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(2.0)
    try:
        probe.connect(path)
    except (ConnectionRefusedError, FileNotFoundError):
        return  # a server that died without cleaning up
    except OSError:
        pass  # a full backlog or a slow listener: still a live one
    finally:
        probe.close()
    raise OptionError(f"a server is already listening on {path}; stop it first or choose another --socket")


def listen_at(path: str, directory: str):
    """A listening socket that appears at `path` with mode 0600, atomically; and its (dev, inode)."""
    temporary = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        if os.path.lexists(temporary):
            os.unlink(temporary)
        # Bound under a private name and renamed into place, so a client never
        # finds the path with a socket that is not yet listening or not yet 0600.
        mask = os.umask(0o177)
        try:
            listener.bind(temporary)
        finally:
            os.umask(mask)
        os.chmod(temporary, 0o600)
        listener.listen(MAX_CONNECTIONS)
        os.rename(temporary, path)
        info = os.lstat(path)
    except OSError as error:
        listener.close()
        if os.path.lexists(temporary):
            os.unlink(temporary)
        raise OptionError(f"cannot listen on {path}: {_reason(error)}") from None
    listener.setblocking(False)
    return listener, (info.st_dev, info.st_ino)


def remove_if_ours(path: str, identity) -> None:
    try:
        info = os.lstat(path)
        if (info.st_dev, info.st_ino) == identity:
            os.unlink(path)
    except OSError:
        pass


class Listener:
    """A listening socket, the protocol its clients speak ("spamnb" or "spamd"),
    and for TCP the networks allowed to connect (a Unix socket checks the uid)."""

    def __init__(self, sock, protocol: str = "spamnb", allowed=None) -> None:
        self.sock = sock
        self.protocol = protocol
        self.allowed = allowed  # None: a Unix socket

    def refusal(self, sock, address, uid: int) -> str | None:
        """Why the peer on `sock` may not be served (a line for the log), or None:
        on a Unix socket, a peer whose uid is not `uid`; on TCP, one outside the networks allowed."""
        if self.allowed is None:
            pid, peer_uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                                      struct.calcsize("3i")))
            if peer_uid != uid:
                return f"refused a connection from uid {peer_uid} (pid {pid}): this server serves uid {uid} only"
            return None
        import ipaddress

        host = address[0] if isinstance(address, tuple) else ""
        try:
            peer = ipaddress.ip_address(host.split("%")[0])
        except ValueError:
            return f"refused a spamd connection from {host!r}: not an IP address"
        if getattr(peer, "ipv4_mapped", None):
            peer = peer.ipv4_mapped  # type: ignore[union-attr, assignment]  # an IPv6 address mapping an IPv4 one
        if not any(peer in network for network in self.allowed):
            return f"refused a spamd connection from {peer}: not in --spamd-allow"
        return None

