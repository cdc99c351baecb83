-- NLang in Neovim with nvim-dap: the adapter (nlangdbg dap, or a TCP
-- connection to `nlangdbg run --listen`), configurations and keymaps.
-- Put this file in ~/.config/nvim/lua/ and add require('nlang') to
-- init.lua (see docs/editors.md in the nlangdbg repository).
local dap = require('dap')

-- .n files are NLang (C-style comments, so gcc/commentstring work too).
vim.cmd([[
  augroup nlang_filetype
    autocmd!
    autocmd BufRead,BufNewFile *.n setfiletype nlang
    autocmd FileType nlang setlocal commentstring=//\ %s
  augroup END
]])

-- The binary: vim.g.nlangdbg_path, else nlangdbg on PATH.
dap.adapters.nlang = function(callback, config)
  if config.request == 'attach' then
    callback({ type = 'server', host = config.host or '127.0.0.1', port = config.port })
  else
    callback({ type = 'executable', command = vim.g.nlangdbg_path or 'nlangdbg', args = { 'dap' } })
  end
end

dap.configurations.nlang = {
  {
    type = 'nlang',
    request = 'launch',
    name = 'NLang: Launch',
    program = '${file}',
    cwd = '${workspaceFolder}',
    stopOnEntry = false,
  },
  {
    type = 'nlang',
    request = 'launch',
    name = 'NLang: Launch with a scheduler seed',
    program = '${file}',
    cwd = '${workspaceFolder}',
    seed = function() return tonumber(vim.fn.input('Seed: ', '1')) end,
    quota = 4000,
  },
  {
    type = 'nlang',
    request = 'launch',
    name = 'NLang: Launch in a terminal (the program reads what you type)',
    program = '${file}',
    cwd = '${workspaceFolder}',
    console = 'integratedTerminal',
  },
  {
    type = 'nlang',
    request = 'attach',
    name = 'NLang: Attach (nlangdbg run --listen)',
    host = '127.0.0.1',
    port = function() return tonumber(vim.fn.input('Port: ', '4711')) end,
  },
}

-- Keymaps in the style of VS Code's.
local map = function(lhs, rhs, desc) vim.keymap.set('n', lhs, rhs, { desc = desc }) end
map('<F5>', dap.continue, 'Debug: start or continue')
map('<F9>', dap.toggle_breakpoint, 'Debug: toggle breakpoint')
map('<F10>', dap.step_over, 'Debug: step over')
map('<F11>', dap.step_into, 'Debug: step into')
map('<S-F11>', dap.step_out, 'Debug: step out')
map('<S-F5>', dap.terminate, 'Debug: stop')
map('<Leader>dr', dap.repl.open, 'Debug: open the REPL (:sched, :threads ...)')
map('<Leader>dt', function()
  local widgets = require('dap.ui.widgets')
  widgets.sidebar(widgets.threads).open()
end, 'Debug: threads')
map('<Leader>ds', function()
  local widgets = require('dap.ui.widgets')
  widgets.sidebar(widgets.scopes).open()
end, 'Debug: variables')

-- Edit and continue: :NLangReload [-move] installs the code of the edited
-- files in the paused program (the server's nlang/reload request), and a
-- write of a .n file while the program is paused does it too (set
-- vim.g.nlang_reload_on_write = false to turn that off).
local function reload_summary(b)
  if b.unchanged then return 'NLang: nothing to reload' end
  local parts = {}
  for _, k in ipairs({ 'changed', 'added', 'removed', 'fields' }) do
    if b[k] and #b[k] > 0 then table.insert(parts, k .. ' ' .. table.concat(b[k], ', ')) end
  end
  local old = 0
  for _, f in ipairs(b.frames or {}) do
    if f.how == 'old' then old = old + 1 end
  end
  local text = 'NLang: reload ' .. tostring(b.reload) .. ': ' .. table.concat(parts, '; ')
  if old > 0 then text = text .. ' (' .. old .. ' frame(s) finish on the old code; restart a frame to run the new code)' end
  return text
end
local function reload(args)
  local session = dap.session()
  if not session or session.config.type ~= 'nlang' then
    vim.notify('NLang: no NLang debug session', vim.log.levels.ERROR)
    return
  end
  session:request('nlang/reload', args or {}, function(err, body)
    if err then
      vim.notify('NLang: not reloaded: ' .. (err.message or tostring(err)), vim.log.levels.ERROR)
    else
      vim.notify(reload_summary(body))
    end
  end)
end
vim.api.nvim_create_user_command('NLangReload', function(o)
  reload({ move = o.args == '-move' })
end, { nargs = '?', desc = 'NLang: reload the edited code into the paused program' })
vim.api.nvim_create_autocmd('BufWritePost', {
  pattern = '*.n',
  callback = function()
    local session = dap.session()
    if vim.g.nlang_reload_on_write ~= false and session and session.config.type == 'nlang' and session.stopped_thread_id then
      reload({})
    end
  end,
})
map('<Leader>dR', reload, 'Debug: reload the edited code (edit and continue)')

return { configurations = dap.configurations.nlang, reload = reload }
