package sandbox

// serveLong is the help of bnpl sandbox serve.
const serveLong = `Serve the sandbox: the service's checkout, payment, webhook and dispute endpoints
with their statuses, errors and state, one listener per regional base address. It
prints the base URLs and the built-in merchants with their keys, then serves until
interrupted. It is hermetic: webhook URLs are judged without DNS (names under
.invalid, .test, .localhost, .local and .internal are refused as not resolving,
other well-formed public names are accepted) unless --resolve-hosts is given.
The state is the embedded sandbox's file ($XDG_STATE_HOME/bnpl/sandbox.db), so
that the commands run without a profile and this server see the same payments,
and a checkout URL printed by the embedded default opens here. --state FILE serves
another file, --state :memory: keeps the state in memory until the server stops.
A file may be shared by several processes at once (SQLite in WAL mode).

The listeners are on loopback by default. An address that is not loopback is
warned about: the service's endpoints and the hosted payment page are then
reachable from other machines.

Served from a container (see docs/ci.md), the sandbox needs three more things,
each with its risk:

  --public-url REGION=URL  where clients reach a region, e.g.
      ae=http://bnpl-sandbox:8700. Every URL the sandbox hands out (a session's
      web_url, its QR code, the dashboard's links, what serve prints) uses it,
      and the Host guard accepts its host. Without it, a listener on
      a wildcard address (0.0.0.0) builds links from each request's Host. Risk:
      a wrong URL sends customers' browsers elsewhere; use a name you control.
  --allowed-host NAME      a host name (the service name other containers use)
      that every path (/api/ and /_sandbox/) answers besides addresses and
      localhost. Every other name is still refused, as a name rebound to this machine by DNS may be an
      attack from a web page. Risk: a page whose name resolves to NAME for a
      browser on this machine can read and drive the sandbox.
  --open-control           open the control endpoints (approve, reset, clock,
      disputes, deliveries, logs) and the dashboard to clients that are not
      loopback. Off by default: it is for a sandbox in a container, whose
      clients come through the container's network. Risk: anyone who reaches
      the port can approve, reject and reset; warned about on stderr.

--allow-host and --allow-remote-control, the earlier spellings of the last two,
still work.

The environment fills the flags not given: BNPL_SANDBOX_AE_ADDR,
BNPL_SANDBOX_SA_ADDR, BNPL_SANDBOX_STATE (a file, or :memory:),
BNPL_SANDBOX_PUBLIC_URL (REGION=URL pairs, comma-separated),
BNPL_SANDBOX_ALLOW_HOST (names, comma-separated) and
BNPL_SANDBOX_ALLOW_REMOTE_CONTROL (1, true or yes).

GET /_sandbox/health answers 200 once the sandbox serves and 503 before its
state is open; bnpl sandbox wait waits for it. Each run has an instance id
(--instance, env BNPL_SANDBOX_INSTANCE, else a random one) that the health check
answers and the banner prints. --ready-file FILE writes, once the sandbox accepts
requests, a JSON file with the instance, the pid, the version, the state, and the
URLs and addresses of each region (ports resolved when :0 was asked); if serve
fails first (a port in use, a state it cannot write) the file holds the error
instead. The file is removed when serve stops. bnpl sandbox wait --ready-file FILE
waits for it, and fails at once with serve's error, so that a job never goes on
against another sandbox that holds the port.

The state's directory must be writable by the user serve runs as (65532 in the
container image): a directory that is not is refused before anything listens,
saying which user needs it (chown it, run as its owner with --user, or use
--state :memory:).

--seed-file FILE seeds a fixture (the format of bnpl sandbox seed) into the state
before the sandbox serves, so it is ready only once the fixture is in; a fixture
the sandbox refuses stops serve (exit 2) naming the file, line and field. Only an
empty state is seeded: a state that holds payments or webhooks already (a
container restarted on its volume) is served as it is, with a notice that the
seed was skipped.

--seed N makes the draws of --faults and the ids the sandbox makes (sessions,
payments, captures, refunds, disputes, webhooks, deliveries) the same on every run
with the same requests, from an empty state.

--seed N also fixes the clock, so that times repeat too (created_at, captures,
refunds, expiries): the sandbox's time no longer follows the machine's, it
starts at 2100-01-01T00:00:00Z (--clock-start TIME picks another start, with
or without --seed) and moves 1s before each request that may change the state
(any method but GET, HEAD and OPTIONS) and by bnpl sandbox clock --advance.
Timers fire only when that clock passes them: a checkout left open expires
after bnpl sandbox clock --advance 31m. Commands that open the state file
themselves (the embedded default) keep the machine's clock: use --state
:memory: and reach the server (BNPL_BASE_URL, --sandbox-url).`

const serveExample = `  bnpl sandbox serve
  bnpl sandbox serve --state :memory: --ae-addr 127.0.0.1:9700 --sa-addr 127.0.0.1:9701
  bnpl sandbox serve --state ./ci-sandbox.db
  bnpl sandbox serve --faults '500-after=0.1,drop-after=0.1,latency=5ms' --seed 7
  bnpl sandbox serve --rate-limit
  bnpl sandbox serve --allow-local-webhooks --webhook-retry-scale 0.01
  bnpl sandbox serve --state :memory: --seed-file testdata/fixtures/every-state.yaml --seed 7
  bnpl sandbox serve --state :memory: --seed 7 --clock-start 2030-06-01T09:00:00Z
  bnpl sandbox serve --ae-addr 0.0.0.0:8700 --sa-addr 0.0.0.0:8701 --open-control \
    --allowed-host bnpl-sandbox --public-url ae=http://bnpl-sandbox:8700 --public-url sa=http://bnpl-sandbox:8701
  bnpl sandbox serve --state :memory: --ae-addr 127.0.0.1:0 \
    --sa-addr 127.0.0.1:0 --ready-file sandbox.json`
