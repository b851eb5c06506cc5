import contextlib
from contextlib import nullcontext, suppress, ExitStack, closing
cm = nullcontext(42)
print(cm.__enter__(), cm.__exit__(None, None, None))
with nullcontext():
    print("inside")
s = suppress(KeyError, ValueError)
s.__enter__()
print(s.__exit__(KeyError, KeyError('k'), None), s.__exit__(TypeError, TypeError('t'), None), s.__exit__(None, None, None))
print(suppress(Exception).__exit__(ZeroDivisionError, None, None))
log = []
stack = ExitStack()
stack.callback(log.append, 'first')
stack.callback(lambda: log.append('second'))
v = stack.enter_context(nullcontext('value'))
print(v)
stack.close()
print(log)
class Res:
    def close(self):
        print("closed")
r = closing(Res())
r.__enter__()
r.__exit__(None, None, None)
result = log
