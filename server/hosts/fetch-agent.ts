import { VERSION_PLACEHOLDER } from '../../agent/build.ts';

/**
 * The Node code both installs download the agent with (docs/agent.md, "Updating agents"): the systemd
 * unit's `ExecStartPre` as a file, the Docker container's start as `node -e`. It reaches the server
 * as the agent does (agent/settings.ts, agent/transport.ts), because the file it writes runs as root:
 * - plain HTTP only to a loopback address, or with MON_ALLOW_HTTP=1 (the agent's own rule);
 * - no redirect followed (an https server sending it to http:// would hand the file to the network);
 * - the server's certificate verified against Node's roots (NODE_EXTRA_CA_CERTS' included) and
 *   MON_CA, both, in an `https.Agent` with `ca` as the agent makes one;
 * - HTTPS_PROXY and NO_PROXY, through that agent's `proxyEnv` (Node 24.5 and later), with nothing
 *   else to set.
 * It replaces the file named last only with a whole agent file: its first lines name its version, and
 * the version's hash (agent/build.ts) must be that of the code received, so a body cut short (a
 * server closing early without Content-Length) or any other page leaves the file there as it was, and
 * says why. Written beside it, synced, renamed over it and the directory synced, so a crash leaves one
 * or the other whole. It fails after 30 s.
 *
 * Written without `'`, `$` or backticks (it sits in shell quotes as it is), without a `\` before
 * `"` or another `\` (the Docker command escapes its `"` for sh): fetch-agent.test.ts holds it to that.
 */

const AGENT_PATH = '/agent/v1/agent.mjs';
/** How long a download of the agent may take: a unit's start must not hang on a server that is down. */
const DOWNLOAD_TIMEOUT_MS = 30_000;
/** A bigger answer is not the agent (about 110 KiB). */
const MAX_BYTES = 32 * 2 ** 20;

/**
 * The agent's loopback rule (agent/settings.ts `isLoopback`) as an expression of the script:
 * `localhost`, 127.0.0.0/8 and ::1 as written (URL's hostname, IPv6 in brackets). fetch-agent.test.ts
 * holds the two to the same answers.
 */
export const LOOPBACK_RULE = `(h=>{const n=require("net");h=(h.startsWith("[")?h.slice(1,-1):h).toLowerCase();return h==="localhost"||(n.isIPv4(h)&&h.startsWith("127."))||(n.isIPv6(h)&&(h==="::1"||h.startsWith("::ffff:127.")||/^::ffff:7f[0-9a-f]{2}:/.test(h)))})`;

export const DOWNLOAD_SCRIPT = [
  `const f=process.argv.at(-1),e=process.env,fs=require("fs");`,
  `const fail=m=>{console.error("mon: cannot download the agent: "+m+(fs.existsSync(f)?"; the agent file there stays as it was":""));process.exit(1)};`,
  // The settings as the agent reads them.
  `let s=String(e.MON_SERVER||"").trim();while(s.endsWith("/"))s=s.slice(0,-1);`,
  `const u=URL.canParse(s)?new URL(s+"${AGENT_PATH}"):null;`,
  `if(!u||!["https:","http:"].includes(u.protocol))fail("MON_SERVER must be an https:// (or http://) URL, such as https://mon.example.com");`,
  `const a=e.MON_ALLOW_HTTP||"";if(a!=="0"&&a!=="1"&&a!=="")fail("MON_ALLOW_HTTP must be 1 (allow plain HTTP to a server that is not loopback) or 0");`,
  `if(u.protocol==="http:"&&a!=="1"&&!${LOOPBACK_RULE}(u.hostname))fail("MON_SERVER is plain HTTP to "+u.hostname+", which is not this machine: the agent, which runs as root, would cross the network unencrypted. Use https://, or set MON_ALLOW_HTTP=1 if the network between them is trusted");`,
  `let ca=null;if(e.MON_CA)try{ca=fs.readFileSync(e.MON_CA,"utf8")}catch(x){fail("MON_CA: cannot read "+e.MON_CA+" ("+(x.code||x.message)+")")}`,
  // The agent's connection: its roots and MON_CA together, its proxy variables, for https only.
  `const tls=require("tls"),web=require(u.protocol.slice(0,-1)),g=tls.getCACertificates,px={};`,
  `for(const k of ["HTTPS_PROXY","https_proxy","NO_PROXY","no_proxy"])if(e[k])px[k]=e[k];`,
  `const proxied=u.protocol==="https:"&&Boolean(e.HTTPS_PROXY||e.https_proxy);`,
  `const agent=u.protocol==="https:"?new web.Agent({rejectUnauthorized:true,...(ca?{ca:[...(g?g("default"):tls.rootCertificates),ca]}:{}),...(proxied?{proxyEnv:px}:{})}):new web.Agent();`,
  `if(proxied&&!Object.getOwnPropertySymbols(agent).some(y=>y.description==="kProxyConfig"))console.error("mon: HTTPS_PROXY is set, but Node "+process.version+" cannot take the download through it (Node 24.5 and later can): connecting directly");`,
  // Not only "socket hang up": why, with a hint for a certificate not trusted.
  `const why=x=>(x.code&&!String(x.message).includes(x.code)?x.code+": ":"")+x.message+(/CERT|SIGN|ISSUER/.test(String(x.code))?"; for a private CA, run this with NODE_EXTRA_CA_CERTS=/path/to/ca.pem":"");`,
  // Only a whole agent file: its first lines name its version, whose hash must be that of its code.
  String.raw`const keep=b=>{const t=b.toString("utf8"),h="#!/usr/bin/env node\n// mon agent ",eol=t.indexOf("\n",h.length);`,
  `if(!t.startsWith(h))fail("the answer is not a mon agent file");`,
  `if(eol<0)fail("the answer ended after "+b.length+" bytes, within the first lines of the file");`,
  `const v=t.slice(h.length,eol).split(": ")[0],hash=v.split("+")[1]||"";`,
  `if(!/^[0-9a-f]{12}/.test(hash)||hash.length!==12)fail("the agent file names no hash of its code ("+v+") to check it against: the server serves an agent built before mon gave builds one; run npm install on the server");`,
  `const code=t.slice(eol+1).split(v).join("${VERSION_PLACEHOLDER}");`,
  `if(require("crypto").createHash("sha256").update(code).digest("hex").slice(0,12)!==hash)fail("the "+b.length+" bytes received are not the agent file whole (cut short, or changed on the way): their code does not have the hash its first lines name ("+v+")");`,
  `const tmp=f+"."+process.pid+".tmp";`,
  `try{const o=fs.openSync(tmp,"w",0o644);try{fs.writeFileSync(o,b);fs.fsyncSync(o)}finally{fs.closeSync(o)}fs.renameSync(tmp,f)}catch(x){fs.rmSync(tmp,{force:true});fail("cannot write "+f+" ("+x.message+")")}`,
  // A filesystem that cannot sync a directory (EINVAL) has renamed the file all the same.
  `try{const d=fs.openSync(require("path").dirname(f),"r");try{fs.fsyncSync(d)}finally{fs.closeSync(d)}}catch{}`,
  `process.exit(0)};`,
  `const req=web.get(u,{agent,headers:{"user-agent":"mon-agent-download"}},r=>{`,
  `if(r.statusCode!==200){r.resume();fail("HTTP "+r.statusCode+" from "+u.href+(r.headers.location?", a redirect to "+r.headers.location+", not followed (nor by the agent): set MON_SERVER to the address of mon":""))}`,
  `const parts=[];let n=0;r.on("data",c=>{n+=c.length;if(n>${MAX_BYTES})req.destroy(new Error("the answer is over ${MAX_BYTES / 2 ** 20} MiB: not a mon agent file"));else parts.push(c)});`,
  `r.on("error",x=>fail(why(x)));r.on("end",()=>keep(Buffer.concat(parts)))});`,
  `req.on("error",x=>fail(why(x)));`,
  `setTimeout(()=>req.destroy(new Error("no answer within ${DOWNLOAD_TIMEOUT_MS / 1000} s")),${DOWNLOAD_TIMEOUT_MS}).unref();`,
].join('');
