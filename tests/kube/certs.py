"""Test PKI for the Kubernetes API test server, made with the openssl CLI at test time.

Files written to DIR: ca.{crt,key} (the cluster CA), server.{crt,key} (SAN 127.0.0.1 and
localhost), admin.{crt,key} (CN=admin, O=system:masters), viewer.{crt,key} (CN=viewer),
other-ca.{crt,key} (an unrelated CA) and rogue.{crt,key} (CN=admin signed by other-ca).
"""

import os
import subprocess


def _run(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def _key(name, cwd):
    _run("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", f"{name}.key", cwd=cwd)


def _ca(name, cn, cwd):
    _key(name, cwd)
    _run("req", "-x509", "-new", "-key", f"{name}.key", "-subj", f"/CN={cn}", "-days", "2",
         "-out", f"{name}.crt", cwd=cwd)


def _leaf(name, subj, ca, cwd, ext):
    _key(name, cwd)
    _run("req", "-new", "-key", f"{name}.key", "-subj", subj, "-out", f"{name}.csr", cwd=cwd)
    with open(os.path.join(cwd, f"{name}.ext"), "w") as f:
        f.write(ext)
    _run("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.crt", "-CAkey", f"{ca}.key",
         "-CAcreateserial", "-days", "2", "-extfile", f"{name}.ext", "-out", f"{name}.crt",
         cwd=cwd)


def make_pki(cwd):
    _ca("ca", "ejob-test-ca", cwd)
    _ca("other-ca", "ejob-other-ca", cwd)
    _leaf("server", "/CN=kube-apiserver", "ca", cwd,
          "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc\n"
          "extendedKeyUsage=serverAuth\n")
    client = "extendedKeyUsage=clientAuth\n"
    _leaf("admin", "/O=system:masters/CN=admin", "ca", cwd, client)
    _leaf("viewer", "/CN=viewer", "ca", cwd, client)
    _leaf("rogue", "/O=system:masters/CN=admin", "other-ca", cwd, client)
