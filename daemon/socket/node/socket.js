// Where the daemon's socket is, found as the CLI finds it (daemon/socket/client.py default_socket
// and daemon/system_service/places.py): $AGENTMEMD_SOCKET; else an installed service's socket that
// exists (the one its service file runs the daemon with, whatever this shell's $XDG_RUNTIME_DIR:
// sudo, su and cron set another or none; then the runtime dir's, then the data dir's); else that of
// a service installed here, running or not, so what fails names it; else ~/.agentmemd/agentmemd.sock. tests/test_node_client.py checks
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
      unit: path.join(configHome, "systemd", "user", "agentmemd.service"),
      detached: path.join(configHome, NAME, "service.json"),
    };
  }
  if (platform === "darwin") {
    const dataDir = path.join(home, "Library", "Application Support", NAME);
    const socket = path.join(dataDir, SOCKET_FILE);
    return {
      socket,
      fallback: socket,
      installed: [path.join(home, "Library", "LaunchAgents", "dev.agentmemd.plist")],
      unit: null,
      detached: null,
    };
  }
  return null;
}

/** The words of a systemd ExecStart line as daemon/system_service/systemd.py writes them (a word
 * quoted in "…" with \\ and \" escaped when needed; % and $ doubled), as shlex.split reads them. */
function execWords(line) {
  const words = [];
  let word = null;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === "\\" && i + 1 < line.length && (line[i + 1] === '"' || line[i + 1] === "\\")) word += line[++i];
      else if (c === '"') quoted = false;
      else word += c;
    } else if (c === '"') {
      quoted = true;
      word = word ?? "";
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== null) words.push(word);
  return words.map((w) => w.replaceAll("%%", "%").replaceAll("$$", "$"));
}

/** The --socket the installed service's own file runs the daemon with (a detached daemon's
 * service.json, a Linux unit's ExecStart); null when there is none or it cannot be read. */
function recordedSocket(places) {
  let argv = [];
  try {
    if (places.detached && fs.statSync(places.detached, { throwIfNoEntry: false })?.isFile()) {
      const written = JSON.parse(fs.readFileSync(places.detached, "utf8"));
      argv = (written && typeof written === "object" && Array.isArray(written.argv) && written.argv) || [];
    } else if (places.unit && fs.statSync(places.unit, { throwIfNoEntry: false })?.isFile()) {
      for (const line of fs.readFileSync(places.unit, "utf8").split("\n")) {
        if (line.startsWith("ExecStart=")) argv = execWords(line.slice("ExecStart=".length));
      }
    }
  } catch {
    return null;
  }
  const at = argv.slice(0, -1).indexOf("--socket");
  const given = at >= 0 ? argv[at + 1] : null;
  return typeof given === "string" && path.isAbsolute(given) ? given : null;
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
    const recorded = recordedSocket(places);
    for (const candidate of new Set([recorded, places.socket, places.fallback].filter(Boolean))) {
      if (fs.existsSync(candidate)) return candidate;
    }
    if (places.installed.some((file) => fs.existsSync(file))) return recorded ?? places.socket;
  }
  return path.join(home, ".agentmemd", SOCKET_FILE);
}
