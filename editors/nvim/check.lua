-- Drives the recipe in editors/nvim/nlang.lua with nvim-dap, headless:
--   NVIM_DAP=path/to/nvim-dap NLANGDBG=/abs/nlangdbg NLANG_FIXTURE=/abs/workers.n \
--     nvim --headless -u NONE -l editors/nvim/check.lua   (Neovim 0.9+)
--     nvim --headless -u NONE -c 'luafile editors/nvim/check.lua'   (0.7, 0.8)
-- A breakpoint in a spawned thread, the threads by name, the locals, a
-- step, a continue to the other thread, the program's output; then a
-- program run in a terminal (its input typed there). Exits 0 when every
-- check passed, 1 otherwise.
local here = debug.getinfo(1, 'S').source:sub(2):match('(.*/)') or './'
local function env(name)
  local v = os.getenv(name)
  if not v or v == '' then
    io.stderr:write('set ' .. name .. '\n')
    vim.cmd('cquit 1')
  end
  return v
end
local nvim_dap, bin, fixture = env('NVIM_DAP'), env('NLANGDBG'), env('NLANG_FIXTURE')

vim.opt.runtimepath:prepend(nvim_dap)
package.path = here .. '?.lua;' .. package.path
vim.g.nlangdbg_path = bin
require('nlang')
local dap = require('dap')

local passed, failed = 0, 0
local function check(ok, what)
  if ok then
    passed = passed + 1
    io.stdout:write('ok - ' .. what .. '\n')
  else
    failed = failed + 1
    io.stdout:write('not ok - ' .. what .. '\n')
  end
  return ok
end
local function finish()
  io.stdout:write(string.format('%d passed, %d failed\n', passed, failed))
  vim.cmd(failed == 0 and 'qall!' or 'cquit 1')
end
local function wait(what, cond)
  if not check(vim.wait(20000, cond, 20), what) then finish() end
end
-- request runs a DAP request of the current session and waits for its body.
local function request(command, args)
  local done, body = false, nil
  dap.session():request(command, args, function(err, resp)
    body = (not err) and resp or nil
    done = true
  end)
  wait(command .. ' answered', function() return done end)
  return body or {}
end
local function locals(frame_id)
  local vars = {}
  for _, scope in ipairs(request('scopes', { frameId = frame_id }).scopes or {}) do
    for _, v in ipairs(request('variables', { variablesReference = scope.variablesReference }).variables or {}) do
      vars[v.name] = v.value
    end
  end
  return vars
end

local output, stops, terminated = {}, {}, false
dap.listeners.after.event_output['nlang-check'] = function(_, body) table.insert(output, body.output) end
dap.listeners.after.event_stopped['nlang-check'] = function(_, body) table.insert(stops, body) end
dap.listeners.after.event_terminated['nlang-check'] = function() terminated = true end

vim.cmd('edit ' .. vim.fn.fnameescape(fixture))
check(vim.bo.filetype == 'nlang', 'a .n file has filetype nlang')
local bp
for i, line in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
  if line:find('// @bp done', 1, true) then bp = i end
end
vim.api.nvim_win_set_cursor(0, { bp, 0 })
dap.toggle_breakpoint()

dap.run(dap.configurations.nlang[1])
wait('stopped at the breakpoint', function() return #stops >= 1 end)
check(stops[1].reason == 'breakpoint', 'the stop is a breakpoint (' .. tostring(stops[1].reason) .. ')')
local names = {}
for _, t in ipairs(request('threads').threads or {}) do names[#names + 1] = t.name end
local joined = table.concat(names, ' | ')
check(joined:find('main') and joined:find('alpha') and joined:find('beta'), 'threads by name: ' .. joined)
local frames = request('stackTrace', { threadId = stops[1].threadId }).stackFrames or {}
check(frames[1] and frames[1].line == bp, 'the top frame is at line ' .. bp)
local vars = locals(frames[1].id)
check(vars.who == '"alpha"' and vars.total == '55' and vars.n == '10',
  'locals who=' .. tostring(vars.who) .. ' n=' .. tostring(vars.n) .. ' total=' .. tostring(vars.total))

-- a custom request, as nvim-dap's JSON encoder writes it
check((request('nlang/scheduler').quota or 0) > 0, 'nlang/scheduler answers (encoded as ' .. vim.fn.json_encode('nlang/scheduler') .. ')')

dap.step_over()
wait('a step stops again', function() return #stops >= 2 end)
frames = request('stackTrace', { threadId = stops[2].threadId }).stackFrames or {}
check(frames[1] and frames[1].line == bp + 1, 'the step went to line ' .. (bp + 1))

dap.continue()
wait('the other worker stops at the breakpoint', function() return #stops >= 3 end)
frames = request('stackTrace', { threadId = stops[3].threadId }).stackFrames or {}
vars = locals(frames[1].id)
check(vars.who == '"beta"' and vars.total == '210', 'locals of beta: who=' .. tostring(vars.who) .. ' total=' .. tostring(vars.total))

dap.continue()
wait('the program ends', function() return terminated end)
local out = table.concat(output)
check(out:find('alpha done: 55', 1, true) and out:find('beta done: 210', 1, true) and out:find('total 265', 1, true),
  'the program\'s output: ' .. out:gsub('\n', '\\n'))

-- The terminal configuration: nvim-dap's runInTerminal opens a terminal
-- where the program writes, and what is typed there is its input.
local prog = vim.fn.tempname() .. '.n'
vim.fn.writefile({ 'import io;', 'int main() {', '    io.print("name?");', '    string s = io.readLine();',
  '    io.print("hello " + s);', '    return 0;', '}' }, prog)
terminated = false
local conf = vim.deepcopy(dap.configurations.nlang[3])
conf.program = prog
dap.run(conf)
local term
local function screen()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b):find('dap-terminal', 1, true) then
      term = b
      return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n')
    end
  end
  return ''
end
wait('the program writes in the terminal', function() return screen():find('name?', 1, true) ~= nil end)
for _, w in ipairs(vim.api.nvim_list_wins()) do
  if vim.api.nvim_win_get_buf(w) == term then vim.api.nvim_set_current_win(w) end
end
-- (typed keys reach the terminal from Neovim's main loop, once this
-- script returns to it: i enters terminal mode, the rest goes to the
-- program)
vim.api.nvim_input('iplum<CR>')
vim.defer_fn(function()
  wait('the program reads what is typed there', function() return screen():find('hello plum', 1, true) ~= nil end)
  wait('the program in the terminal ends', function() return terminated end)
  finish()
end, 50)

