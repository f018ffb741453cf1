// Where the daemon's socket is, found as the CLI finds it (daemon/socket/client.py default_socket
// and daemon/system_service/places.py): $AGENTMEMD_SOCKET; else an installed service's socket that
// exists (the runtime dir's, then the data dir's); else that of a service installed here, running or
// not, so what fails names it; else ~/.agentmemd/agentmemd.sock. tests/test_node_client.py checks
// that both find the same socket.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const NAME = "agentmemd";
const SOCKET_FILE = "agentmemd.sock";

function xdg(env, name, fallback) {
  // The XDG spec says to ignore a relative path.
  const value = env[name] ?? "";
  return value && path.isAbsolute(value) ? value : fallback;
}

function servicePlaces(env, home, platform) {
  if (platform === "linux") {
    const dataDir = path.join(xdg(env, "XDG_DATA_HOME", path.join(home, ".local", "share")), NAME);
    const configHome = xdg(env, "XDG_CONFIG_HOME", path.join(home, ".config"));
    const runtime = env.XDG_RUNTIME_DIR ?? "";
    const runtimeDir = runtime && path.isAbsolute(runtime) ? path.join(runtime, NAME) : null;
    return {
      socket: path.join(runtimeDir ?? dataDir, SOCKET_FILE),
      fallback: path.join(dataDir, SOCKET_FILE),
      installed: [
        path.join(configHome, "systemd", "user", "agentmemd.service"),
        path.join(configHome, NAME, "service.json"),
      ],
    };
  }
  if (platform === "darwin") {
    const dataDir = path.join(home, "Library", "Application Support", NAME);
    const socket = path.join(dataDir, SOCKET_FILE);
    return { socket, fallback: socket, installed: [path.join(home, "Library", "LaunchAgents", "dev.agentmemd.plist")] };
  }
  return null;
}

/** A path as a config file or an environment variable gives it, a leading `~` read as home (no
 * shell did: an MCP host's or OpenClaw's JSON, a service file, a container). */
export function fromHome(given, home = os.homedir()) {
  return given === "~" || given.startsWith("~/") ? path.join(home, given.slice(2)) : given;
}

/** The socket a client uses unless told another. */
export function defaultSocket(env = process.env, home = os.homedir(), platform = process.platform) {
  if (env.AGENTMEMD_SOCKET) return fromHome(env.AGENTMEMD_SOCKET, home);
  const places = servicePlaces(env, home, platform);
  if (places) {
    for (const candidate of new Set([places.socket, places.fallback])) {
      if (fs.existsSync(candidate)) return candidate;
    }
    if (places.installed.some((file) => fs.existsSync(file))) return places.socket;
  }
  return path.join(home, ".agentmemd", SOCKET_FILE);
}
