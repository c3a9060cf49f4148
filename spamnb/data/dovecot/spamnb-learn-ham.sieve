require ["vnd.dovecot.pipe", "copy", "imapsieve", "environment", "variables"];
if environment :matches "imap.mailbox" "*" { set "mailbox" "${1}"; }
# Deleting spam from Junk moves it to Trash: that says nothing about it.
if string "${mailbox}" "Trash" { stop; }
pipe :copy "spamnb-learn" ["ham"];
