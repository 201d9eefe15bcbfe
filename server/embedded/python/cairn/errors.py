"""The exceptions of the cairn package: a command's error reply, and a failed open or serve."""


class CairnError(Exception):
    """libcairn could not open a database or serve it (the message says why)."""


class CommandError(CairnError):
    """A command answered ok: 0. Carries MongoDB's error fields as the server sent them."""

    def __init__(self, reply):
        self.reply = reply
        self.code = reply.get("code")
        self.code_name = reply.get("codeName")
        self.errmsg = reply.get("errmsg", "")
        super().__init__(f"{self.errmsg} (code {self.code}, {self.code_name})")
