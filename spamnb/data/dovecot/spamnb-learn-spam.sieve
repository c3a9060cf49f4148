require ["vnd.dovecot.pipe", "copy", "imapsieve"];
pipe :copy "spamnb-learn" ["spam"];
