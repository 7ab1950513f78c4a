package wire

// SandboxService is the "service" of the answer to GET SandboxHealthPath
// by which a bnpl sandbox names itself. The client asks for it, without a
// key, before a sandbox's built-in key may travel over plain http to a
// host that is not loopback (a sandbox container reached by its service
// name); the sandbox answers it.
const SandboxService = "bnpl-sandbox"

// SandboxHealthPath is the sandbox's readiness check, open to every client.
const SandboxHealthPath = "/_sandbox/health"
